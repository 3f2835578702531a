package runner

import (
	"path/filepath"

	"github.com/rexmle/rexmle/internal/runner/validate"
)

// validationServer is the run's validation endpoint.
type validationServer struct {
	socket string
	srv    *validate.Server
}

func startValidation(j *Job) (*validationServer, error) {
	mounts := map[string]string{
		ContainerSubmission: filepath.Join(j.RunDir, "submission"),
		ContainerWorkspace:  filepath.Join(j.RunDir, "workspace"),
		ContainerLogs:       filepath.Join(j.RunDir, "logs"),
	}
	def := ContainerSubmission
	if j.Agent.Sandbox == "none" && (j.Agent.Executor == "" || j.Agent.Executor == "local") {
		def = filepath.Join(j.RunDir, "submission")
	}
	h := validate.Handler(validate.CheckFunc(j.Validate), validate.Within(j.RunDir, mounts), def)
	srv, err := validate.Listen(filepath.Join(j.RunDir, "validate.sock"), h)
	if err != nil {
		return nil, err
	}
	return &validationServer{socket: srv.Socket, srv: srv}, nil
}

func (v *validationServer) Close() error { return v.srv.Close() }
