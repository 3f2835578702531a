package runner

import (
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

// validationServer is the run's validation endpoint.
type validationServer struct {
	socket  string
	srv     *validate.Server
	scratch string
}

// validateScratch is the endpoint's private folder in the run folder
// (snapshots and uploads); no sandbox or container mounts it.
const validateScratch = ".validate"

func startValidation(j *Job) (*validationServer, error) {
	sub, ws, logs := filepath.Join(j.RunDir, "submission"), filepath.Join(j.RunDir, "workspace"), filepath.Join(j.RunDir, "logs")
	folders := map[string]string{
		ContainerSubmission: sub,
		ContainerWorkspace:  ws,
		ContainerLogs:       logs,
		// The host names, for an agent that runs outside a sandbox.
		sub: sub, ws: ws, logs: logs,
	}
	def := ContainerSubmission
	if j.Agent.Sandbox == "none" && (j.Agent.Executor == "" || j.Agent.Executor == "local") {
		def = sub
	}
	h, err := validate.Handler(validate.Config{
		Check:   validate.CheckFunc(j.Validate),
		Folders: folders,
		Default: def,
		Scratch: filepath.Join(j.RunDir, validateScratch),
		Limits:  validate.Limits{MaxFile: j.SnapshotMaxFile, MaxTotal: j.SnapshotMaxTotal},
		Log:     j.logger().With("run", j.ID()),
	})
	if err != nil {
		return nil, err
	}
	srv, err := validate.Listen(filepath.Join(j.RunDir, "validate.sock"), h)
	if err != nil {
		return nil, err
	}
	return &validationServer{socket: srv.Socket, srv: srv, scratch: filepath.Join(j.RunDir, validateScratch)}, nil
}

func (v *validationServer) Close() error {
	err := v.srv.Close()
	os.RemoveAll(v.scratch)
	return err
}
