package deploy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"os"
	"path/filepath"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// reportSchema is the report's JSON Schema, compiled.
func reportSchema(t *testing.T) *validator.Schema {
	t.Helper()
	doc, err := validator.UnmarshalJSON(bytes.NewReader(runreport.ReportSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validate checks a report's JSON against the schema, as a machine reading it would.
func validate(s *validator.Schema, data []byte) error {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("%#v", err) // every cause, with the place in the report
	}
	return nil
}

// Promise: report-holds-no-secret
func TestEveryCommandsReportValidatesAgainstTheReportSchemaAndHoldsNoSecret(t *testing.T) {
	ctx := context.Background()
	const token = "dop_v1_report-test-token-never-printed"
	t.Setenv("DIGITALOCEAN_TOKEN", token)
	schema := reportSchema(t)
	d, b := deployer()
	c := cluster(t)
	moved := cluster(t, "region: fra1", "region: ams3")
	protected := target(t, "protected.yaml", strings.Replace(mustText(t, c), "deletionProtection: false", "deletionProtection: true", 1))

	// Each command's outcomes, in the states a report must carry: changes with the fields behind
	// them, refusals, drift, status, disagreements, failures and skips.
	steps := []struct {
		command operation.Name
		run     func() []outcome.Outcome
	}{
		{operation.Preview, func() []outcome.Outcome { return []outcome.Outcome{d.Preview(ctx, c, deploy.PreviewOptions{})} }},
		{operation.Up, func() []outcome.Outcome { return []outcome.Outcome{d.Up(ctx, c, deploy.UpOptions{Yes: true})} }},
		{operation.Preview, func() []outcome.Outcome { return []outcome.Outcome{d.Preview(ctx, moved, deploy.PreviewOptions{})} }},
		{operation.Up, func() []outcome.Outcome {
			return []outcome.Outcome{d.Up(ctx, cluster(t, "nodeCount: 2", "nodeCount: 4"), deploy.UpOptions{Yes: true})}
		}},
		{operation.Up, func() []outcome.Outcome { return []outcome.Outcome{d.Up(ctx, protected, deploy.UpOptions{Yes: true})} }},
		{operation.Refresh, func() []outcome.Outcome { return []outcome.Outcome{d.Refresh(ctx, c, deploy.RefreshOptions{})} }},
		{operation.Drift, func() []outcome.Outcome {
			b.Edit(c.Key(), clusterType, "dev-fra1", "tags", []any{"edited"})
			return []outcome.Outcome{d.Drift(ctx, c)}
		}},
		{operation.Status, func() []outcome.Outcome {
			return []outcome.Outcome{d.Status(ctx, c, deploy.StatusOptions{Drift: true}), d.Status(ctx, pool(t, "w", "x-y"), deploy.StatusOptions{})}
		}},
		{operation.Adopt, func() []outcome.Outcome {
			// Another region blocks; another count is listed for the next up.
			b.Live("cluster-9", map[string]any{"name": "other", "region": "ams3", "version": "1.31.1-do.5",
				"nodePool": map[string]any{"name": "default", "size": "s-2vcpu-4gb", "actualNodeCount": float64(7)}})
			return []outcome.Outcome{d.Adopt(ctx, namedCluster(t, "other", "dev", ""), "cluster-9", deploy.AdoptOptions{})}
		}},
		{operation.Up, func() []outcome.Outcome {
			// A fleet whose cluster fails: its pool is skipped.
			cl, p := namedCluster(t, "edge", "prod", ""), pool(t, "edge-workers", "edge-prod")
			b.Fail(cl.Key(), "update", &stackstate.EngineError{Command: "update", Cause: "422 invalid size"})
			sorted, deps, err := queue.Order([]deploytarget.Target{p, cl}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return queue.Queue{Parallel: 2, SkipBlocked: true}.Run(ctx, sorted, deps, func(ctx context.Context, tg deploytarget.Target) outcome.Outcome {
				return d.Up(ctx, tg, deploy.UpOptions{Yes: true})
			})
		}},
		{operation.Up, func() []outcome.Outcome {
			// The cloud holds a cluster of the name that no stack does: refused, naming it.
			taken := namedCluster(t, "taken", "dev", "")
			taken.Lookup = func(context.Context, proto.Message, kinds.Resolve) (kinds.Found, error) {
				return kinds.Found{Live: []kinds.Live{{Type: "cluster", Name: "taken", Where: "region fra1", ID: "c-1"}}}, nil
			}
			return []outcome.Outcome{d.Up(ctx, taken, deploy.UpOptions{Yes: true})}
		}},
		{operation.Destroy, func() []outcome.Outcome {
			return []outcome.Outcome{d.Destroy(ctx, c, deploy.DestroyOptions{}), d.Destroy(ctx, namedCluster(t, "never", "dev", ""), deploy.DestroyOptions{})}
		}},
	}
	seen := map[string]bool{}
	for i, step := range steps {
		r := runreport.NewReport(step.command, step.run())
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(schema, data); err != nil {
			t.Errorf("step %d, the %s report does not validate: %v\n%s", i, step.command, err, data)
		}
		if strings.Contains(string(data), token) || strings.Contains(string(data), "apiVersion: v1\nclusters") {
			t.Errorf("step %d, the %s report holds a secret:\n%s", i, step.command, data)
		}
		for _, key := range []string{`"resources"`, `"refused"`, `"drift"`, `"status"`, `"disagreements"`, `"inPlace"`, `"blockedBy"`, `"fields"`, `"unmanaged"`} {
			if strings.Contains(string(data), key) {
				seen[key] = true
			}
		}
	}
	// The reports above must have exercised every part of the shape, or the schema went untested.
	for _, key := range []string{`"resources"`, `"refused"`, `"drift"`, `"status"`, `"disagreements"`, `"inPlace"`, `"blockedBy"`, `"fields"`, `"unmanaged"`} {
		if !seen[key] {
			t.Errorf("no report had %s: the test no longer covers that part of the schema", key)
		}
	}
}

func TestTheReportSchemaRefusesWhatTheShapeDoesNotHave(t *testing.T) {
	schema := reportSchema(t)
	valid := `{"apiVersion": "clusterplane.dev/report/v1", "command": "up", "summary": {"done": 1},
	  "stacks": [{"file": "a.yaml", "kind": "DigitalOceanKubernetesCluster", "stack": "p/s", "outcome": "done", "reason": "1 update", "seconds": 1}]}`
	tests := []struct {
		name, from, to string
	}{
		{"an unknown field in a stack", `"seconds": 1`, `"seconds": 1, "token": "x"`},
		{"another report version", `report/v1`, `report/v2`},
		{"an unknown outcome", `"outcome": "done"`, `"outcome": "ok"`},
		{"a stack without its project", `"stack": "p/s"`, `"stack": "s"`},
		{"an unknown command", `"command": "up"`, `"command": "apply"`},
	}
	if err := validate(schema, []byte(valid)); err != nil {
		t.Fatalf("the valid report does not validate: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			broken := strings.Replace(valid, tt.from, tt.to, 1)
			if broken == valid {
				t.Fatalf("%q not in the report", tt.from)
			}
			if validate(schema, []byte(broken)) == nil {
				t.Errorf("the schema accepts %s", tt.name)
			}
		})
	}
}

func TestTheCommittedReportSchemaIsTheOneTheCodeEmbeds(t *testing.T) {
	committed, err := os.ReadFile(filepath.Join("..", "..", "schemas", "report.v1.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, runreport.ReportSchema) {
		t.Error("schemas/report.v1.schema.json differs from pkg/deploy/runreport/report.schema.json: run make protos")
	}
	if !strings.HasSuffix(runreport.ReportVersion, "/v1") {
		t.Errorf("ReportVersion %s: a new version needs its own schema file", runreport.ReportVersion)
	}
}

func TestAReportNamesTheManifestFieldThatChangedNotEveryFieldSentAsTheSameProperty(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	mustUp(ctx, t, d, cluster(t))
	// The cluster's tags property is sent from spec.tags and from metadata (the derived tags).
	tagged := cluster(t, "\nspec:\n", "\nspec:\n  tags: [team-b]\n")
	r := runreport.NewReport("up", []outcome.Outcome{d.Up(ctx, tagged, deploy.UpOptions{Yes: true})})
	var paths []string
	for _, rc := range r.Stacks[0].Resources {
		for _, f := range rc.Fields {
			paths = append(paths, f.Path)
		}
	}
	if strings.Join(paths, " ") != "spec.tags" {
		t.Errorf("fields %v, want spec.tags only", paths)
	}
}

// Promise: cost-never-from-nothing
func TestAReportPricesACreateFromNothingAndAStackThatRecordedNoManifestWithoutAChange(t *testing.T) {
	c := cluster(t)
	tests := []struct {
		name    string
		status  outcome.Status
		changes map[string]int
		// says is what the stack's cost line says, "" when the report carries no cost.
		says string
	}{
		{"a create, from nothing", outcome.Done, map[string]int{"create": 4}, "+$48.00/month ($0.00 → $48.00/month;"},
		// An up interrupted before its outputs left the resources in the stack and no manifest:
		// what it deployed is unknown, and "+$48.00 from $0.00" would read as a new charge. The
		// manifest's own cost is known, and said.
		{"resources the stack holds with no manifest recorded", outcome.Done, map[string]int{"same": 4},
			"$48.00/month; the change is not known: the stack recorded no manifest to compare with"},
		{"a create cancelled with Ctrl-C", outcome.Cancelled, map[string]int{"create": 4}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outcomes := []outcome.Outcome{{Target: c, Status: tt.status, Result: &stackstate.Result{Changes: tt.changes}}}
			report := runreport.NewReport("up", outcomes)
			report.Price(outcomes, clouds.Prices)
			got := ""
			if report.Stacks[0].Cost != nil {
				got = report.Stacks[0].Cost.String()
			}
			if tt.says == "" && got != "" || !strings.Contains(got, tt.says) {
				t.Errorf("cost %q, want it to say %q", got, tt.says)
			}
		})
	}
}
