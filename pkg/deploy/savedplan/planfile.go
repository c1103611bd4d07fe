package savedplan

import (
	"os"
	"path/filepath"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/pkg/errors"
)

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
