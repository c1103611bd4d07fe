package savedplan

import (
	"os"
	"path/filepath"
	"time"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/pkg/errors"
)

// SaveTo is a preview's finish with --save-plan: the plan of every stack previewed, written to
// file only when every stack has its part (a plan covers the whole fleet or nothing).
func SaveTo(file string) func(outcomes []outcome.Outcome) error {
	return func(outcomes []outcome.Outcome) error {
		p, err := NewPlan(outcomes, time.Now())
		if err != nil {
			return err
		}
		return p.WriteFile(file)
	}
}

// WriteFile writes the plan to file, so that a reader never sees half a plan.
func (p *Plan) WriteFile(file string) error {
	data, err := p.Marshal()
	if err != nil {
		return err
	}
	return errors.Wrap(atomicwrite.File(file, data), "save the plan")
}

// PlanDestination refuses a plan file that names a folder, or a file in a folder that does not
// exist, before a preview runs: otherwise the whole preview ran only to fail at its end.
func PlanDestination(file string) error {
	if info, err := os.Stat(file); err == nil && info.IsDir() {
		return errors.Errorf("--save-plan %s is a folder: name the plan file to write, such as %s", file, filepath.Join(file, "plan.json"))
	}
	if info, err := os.Stat(filepath.Dir(file)); err != nil || !info.IsDir() {
		return errors.Errorf("--save-plan %s: the folder %s does not exist", file, filepath.Dir(file))
	}
	return nil
}

// ReadPlanFile reads the plan file up --plan applies.
func ReadPlanFile(file string) (*Plan, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, errors.Wrap(err, "read the plan")
	}
	return ReadPlan(file, data)
}
