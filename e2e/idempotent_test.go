//go:build e2e

package e2e_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
)

// upReport runs `clusterplane up FILE --yes -o json`: its exit code, its one stack's report and
// the whole output.
func (e *env) upReport(file string) (int, stackJSON, result) {
	e.t.Helper()
	return e.report("up", file, "--yes")
}

// report runs command on the one manifest file with -o json and returns its exit code and stack.
func (e *env) report(command, file string, flags ...string) (int, stackJSON, result) {
	e.t.Helper()
	r, code := e.clusterplane(append([]string{command, file, "-o", "json"}, flags...)...)
	var report struct {
		Stacks []stackJSON `json:"stacks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || len(report.Stacks) != 1 {
		e.t.Fatalf("%s -o json = %d, not a report of one stack: %v\n%s", command, code, err, r)
	}
	return code, report.Stacks[0], r
}

// stackJSON is the part of a stack's report these tests read.
type stackJSON struct {
	Outcome   string `json:"outcome"`
	Reason    string `json:"reason"`
	Error     string `json:"error"`
	Unmanaged []struct {
		Type, Name, Where, ID string
	} `json:"unmanaged"`
}

func (s stackJSON) ids() []string {
	var out []string
	for _, u := range s.Unmanaged {
		out = append(out, u.ID)
	}
	return out
}

func TestACreateTheCloudCarriedOutButAnswered500ForNamesWhatItLeftAndIsNeverMadeAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	// Every POST of a cluster is carried out, then answered 500. The plugin's client would ask
	// again and make one more each time; clusterplane runs it with its retries off and, seeing the
	// cluster left, does not run the up again.
	e.do.Inject(fakecloud.Fault{Method: http.MethodPost, Path: "/v2/kubernetes/clusters", Status: http.StatusInternalServerError,
		Commit: true, Times: 50})
	code, st, r := e.upReport(manifest)
	made := e.do.Clusters()
	if code != 1 || st.Outcome != "failed" || len(made) != 1 || len(st.Unmanaged) != 1 {
		t.Fatalf("up against a cloud that answers 500 after each create = %d, %s with %v; the cloud holds %d: want failed naming the one made\n%s",
			code, st.Outcome, st.ids(), len(made), r)
	}
	if !strings.Contains(st.Error, made[0].ID) {
		t.Errorf("the failed up's error does not name cluster %s it left: %s", made[0].ID, st.Error)
	}
	if !strings.Contains(st.Error, "clusterplane adopt "+manifest+" --id") {
		t.Errorf("the failed up's error does not say how to adopt: %s", st.Error)
	}
	if s := e.status(manifest); !strings.Contains(message(s, "Ready"), made[0].ID) {
		t.Errorf("status after the failed create does not name what it left: %+v", s)
	}

	// The fault is still there: the next up must not create, and says what to run.
	code, st, r = e.upReport(manifest)
	if code != 3 || st.Outcome != "blocked" || !strings.Contains(st.Error, made[0].ID) ||
		!strings.Contains(st.Error, "clusterplane adopt "+manifest+" --id") {
		t.Errorf("the next up = %d, %s: want refused (3) naming %s and the adopt command\n%s", code, st.Outcome, made[0].ID, r)
	}
	if n := len(e.do.Clusters()); n != 1 {
		t.Errorf("the cloud holds %d clusters after the refused up, want still 1", n)
	}
}

func TestAClusterMadeOutsideClusterplaneIsNeverCreatedAgainButNamedWithTheAdoptCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, example string
		// seed puts a cluster of the manifest's name into the cloud, outside any stack: its id.
		seed  func(e *env) string
		count func(e *env) int
	}{
		{"DigitalOcean", "digitaloceankubernetescluster/minimal.yaml",
			func(e *env) string {
				return e.do.SeedCluster(godo.KubernetesCluster{Name: "dev-fra1", RegionSlug: "fra1",
					NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 2}}})
			},
			func(e *env) int { return len(e.do.Clusters()) }},
		{"Civo", "civokubernetescluster/minimal.yaml",
			func(e *env) string {
				e.seedExamples()
				return e.civo.SeedCluster(civogo.KubernetesCluster{Name: "dev-fra1", NetworkID: e.civo.DefaultNetworkID("fra1")})
			},
			func(e *env) int { return len(e.civo.Clusters()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			id := tt.seed(e)
			before := tt.count(e)
			manifest := e.write("cluster.yaml", withSpec(example(t, tt.example), "  deletionProtection: false\n"))
			// preview says what up will refuse: a green preview is no red up (newcomer7).
			for _, command := range []string{"preview", "up"} {
				code, st, r := e.report(command, manifest, map[string][]string{"up": {"--yes"}}[command]...)
				if code != 3 || st.Outcome != "blocked" || len(st.Unmanaged) != 1 || st.Unmanaged[0].ID != id ||
					!strings.Contains(st.Error, "`clusterplane adopt "+manifest+" --id "+id+"`") {
					t.Errorf("%s with a cluster of its name in the cloud = %d, %s %v: want refused naming %s and the adopt command\n%s",
						command, code, st.Outcome, st.ids(), id, r)
				}
			}
			if n := tt.count(e); n != before {
				t.Errorf("the cloud holds %d clusters after the refused up, want %d", n, before)
			}
		})
	}
}
