package docs

import (
	"encoding/json"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
)

// jsonAfter is the first ```json block of text after the line marker.
func jsonAfter(t *testing.T, text, marker string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, marker)
	if !ok {
		t.Fatalf("docs/api.md has no %q", marker)
	}
	_, rest, ok = strings.Cut(rest, "```json\n")
	if !ok {
		t.Fatalf("docs/api.md has no JSON block after %q", marker)
	}
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// monthlyCostLine finds a "monthly_cost" object shown on one line.
var monthlyCostLine = regexp.MustCompile(`"monthly_cost": (\{[^}]*\})`)

func shownCost(t *testing.T, text, marker string) (min, max float64) {
	t.Helper()
	_, rest, ok := strings.Cut(text, marker)
	if !ok {
		t.Fatalf("docs/api.md has no %q", marker)
	}
	m := monthlyCostLine.FindStringSubmatch(rest)
	if m == nil {
		t.Fatalf("docs/api.md shows no monthly_cost after %q", marker)
	}
	var c struct{ Min, Max float64 }
	if err := json.Unmarshal([]byte(m[1]), &c); err != nil {
		t.Fatalf("the monthly_cost after %q: %v", marker, err)
	}
	return c.Min, c.Max
}

// The monthly_cost docs/api.md shows is what serve reports for the bodies it shows: the
// cluster's (its default pool) in the status example, the pool's in the walkthrough.
func TestTheMonthlyCostsTheAPIDocShowsAreWhatTheBodiesItShowsCost(t *testing.T) {
	data, err := os.ReadFile("api.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	cluster, err := body.Parse([]byte(jsonAfter(t, text, "\nA cluster:\n")))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := body.Parse([]byte(jsonAfter(t, text, "\nA node pool:\n")))
	if err != nil {
		t.Fatal(err)
	}
	clusterManifest, err := body.ClusterManifest(cluster)
	if err != nil {
		t.Fatal(err)
	}
	poolManifest, err := body.PoolManifest(pool, body.ClusterOf(cluster))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		manifest []byte
		pool     bool
		// shownAfter is the heading the cost is shown under.
		shownAfter string
	}{
		{"the cluster's status shows what its default pool costs", clusterManifest, false, "\n## Status\n"},
		{"the walkthrough's pool shows what the pool costs", poolManifest, true, "\n### 4. Watch the pool\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			platform := cluster.Spec.Platform.Type
			kind, ok := registry.Kinds().ByName(body.KindName(platform, tt.pool))
			if !ok {
				t.Fatalf("no kind %s", body.KindName(platform, tt.pool))
			}
			input := kind.NewStackInput()
			if err := stackinput.Parse(tt.manifest, "api.md", input); err != nil {
				t.Fatal(err)
			}
			want := cost.Of(input, clouds.Prices(platform))
			if want.Min == 0 || len(want.Unknown) > 0 {
				t.Fatalf("the example is not priced: %+v", want)
			}
			min, max := shownCost(t, text, tt.shownAfter)
			if min != want.Min || max != want.Max {
				t.Errorf("docs/api.md shows a monthly_cost of %v to %v, want %v to %v, what %s costs", min, max, want.Min, want.Max, kind.Name)
			}
		})
	}
}
