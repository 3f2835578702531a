package stages

import (
	"context"
	"io"
	"os"

	"github.com/rexmle/rexmle/pipeline/judgestage"
)

// Judge scores the logs of the profile's runs (pipeline/judgestage). When
// nothing it depends on changed since it last ran, it says so and does
// nothing.
func Judge(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if d, err := judgeDigest(ctx, e, st); err == nil {
		if since, ok := e.skipIfUnchanged("judge", d); ok {
			say("judge: up to date (runs, rubric and scores unchanged since %s), skipped", sinceText(since))
			return nil
		}
	} else {
		e.log.Warn("judge: up-to-date check failed; judging", "err", err)
	}
	e.dropStamp("judge")
	changedInThisProcess.Store(true)
	_, err = judgestage.Run(ctx, judgestage.Options{
		Benchmark: e.b, ProfileName: e.opt.Profile, Profile: e.profile, Force: e.opt.Force, Getenv: e.opt.Host.Get,
		OpenStore: e.open,
		Progress:  func(n int) judgestage.Progress { return newProgress("judge", n) },
		Rel:       rel,
	})
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, "judge", -1)
		}
		return err
	}
	if d, err := judgeDigest(ctx, e, st); err == nil {
		e.writeStamp("judge", stageStamp{Digest: d})
	}
	return nil
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
