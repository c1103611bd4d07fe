package render

import (
	"encoding/json"
	"fmt"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/redact"
)

// jsonFleet is a command's outcomes for the -o json goldens: preview, up and drift over the same
// fleets as their text goldens (goldenFleets), status over the same as its table's.
func jsonFleet(t *testing.T, command operation.Name, n int) []outcome.Outcome {
	t.Helper()
	if command == operation.Status {
		if n == 1 {
			return statusFleet(t, 1, nil, nil, nil)
		}
		return statusFleet(t, n, []int{n / 2}, []int{n - 1}, []int{n / 3})
	}
	for _, f := range goldenFleets {
		if f.n == n {
			return fleetOutcomes(t, command, n, f.happens)
		}
	}
	t.Fatalf("no golden fleet of %d stacks", n)
	return nil
}

// -o json of preview, up, drift and status over 1, 20 and 1,000 stacks reads as its golden file,
// byte for byte what the command prints (render.JSON); go test -run Golden -update rewrites them.
func TestGoldenJSONReportsOfOneTwentyAndAThousandStacks(t *testing.T) {
	for _, command := range []operation.Name{operation.Preview, operation.Up, operation.Drift, operation.Status} {
		for _, n := range sizes {
			name := fmt.Sprintf("json-%s-%d.golden", command, n)
			t.Run(name, func(t *testing.T) {
				outcomes := jsonFleet(t, command, n)
				data, err := JSON(Report(command, outcomes, clouds.Prices), false, redact.New("s3cret").JSON)
				if err != nil {
					t.Fatal(err)
				}
				var back runreport.Report
				if err := json.Unmarshal(data, &back); err != nil || len(back.Stacks) != n {
					t.Fatalf("the report does not read back as %d stacks: %v", n, err)
				}
				golden(t, name, data)
			})
		}
	}
}
