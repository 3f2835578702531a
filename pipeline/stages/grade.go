package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/grade"
)

// GradeOne grades one submission folder in the requested mode (both modes
// with REXMLE_BOTH_MODES=1) and prints its JSON line. It writes nothing, so
// it takes no checkout lock and can run beside a long stage.
func GradeOne(ctx context.Context, o Options, challengeID, dir string) error {
	e, err := loadNoLock(o)
	if err != nil {
		return err
	}
	c, ok := challenge.Lookup(challengeID)
	if !ok {
		return fmt.Errorf("gradeOne: unknown challenge %q (registered: %s)", challengeID, strings.Join(challenge.IDs(), ", "))
	}
	cc, _ := e.b.Challenge(challengeID)
	dataDir := e.preparedDir(challengeID)
	if err := checkPrepared(dataDir, e.profile.Data, e.opt.Profile, e.opt.SynthSize); err != nil {
		return fmt.Errorf("gradeOne %s: %w", challengeID, err)
	}
	priv := filepath.Join(dataDir, "private")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("gradeOne %s: submission folder %s: not a folder", challengeID, dir)
	}
	mode := e.mode
	line := grade.Folder(ctx, c, cc, dir, priv, mode, o.BothModes)
	b, err := line.Marshal()
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	if !line.Valid {
		return fmt.Errorf("gradeOne %s: submission is not valid", challengeID)
	}
	return nil
}

// Grade grades every submission under the runs folder whose submission has
// no grade yet for the mode, or changed since (pipeline/grade).
func Grade(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	mode := e.mode
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	ids := make([]string, len(e.challenges))
	for i, c := range e.challenges {
		ids[i] = c.ID
	}
	err = grade.Run(ctx, grade.Options{
		Benchmark: e.b, Store: st, Mode: mode, Force: e.opt.Force, Challenges: ids, Setting: e.profile.Setting,
		RunsDir: e.b.Path(e.b.Paths.Runs), ResultsDir: e.b.Path(e.b.Paths.Results),
		PrivateDir: e.privateDir,
		Progress:   func(n int) grade.Progress { return newProgress("grade", n) },
		Rel:        rel,
	})
	if err != nil && ctx.Err() != nil {
		return interrupted(ctx, "grade", -1) // grade.Run said what it kept
	}
	return err
}

// privateDir is the private answers folder a run group's submissions of a
// challenge are graded against: the preparation of the data kind the group
// ran on, which must be there and of that kind.
func (e *env) privateDir(group, challengeID string) (string, error) {
	kind := e.kindOfGroup(group)
	_, root := dataRoots(e.b, kind)
	dataDir := filepath.Join(root, challengeID)
	profile := group
	if _, ok := e.b.Profiles[profile]; !ok {
		profile = e.opt.Profile
	}
	if err := checkPrepared(dataDir, kind, profile, e.opt.SynthSize); err != nil {
		return "", err
	}
	return filepath.Join(dataDir, "private"), nil
}
