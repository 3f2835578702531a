package stages

import (
	"context"
	"io"
	"os"

	"github.com/rexmle/rexmle/pipeline/judgestage"
)

// Judge scores the logs of the profile's runs (pipeline/judgestage).
func Judge(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	_, err = judgestage.Run(ctx, judgestage.Options{
		Benchmark: e.b, ProfileName: e.opt.Profile, Profile: e.profile, Force: e.opt.Force, Getenv: e.opt.Host.Get,
		OpenStore: e.open,
		Progress:  func(n int) judgestage.Progress { return newProgress("judge", n) },
		Rel:       rel,
	})
	return err
}

// JudgeAgreement prints the agreement between the judges in the store and
// with human labels (pipeline/judgestage.Agreement); it judges nothing.
func JudgeAgreement(ctx context.Context, o Options) error { return judgeAgreement(ctx, o, os.Stdout) }

func judgeAgreement(ctx context.Context, o Options, w io.Writer) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	return judgestage.Agreement(ctx, e.b, w, rel)
}
