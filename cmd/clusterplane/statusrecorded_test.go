package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
)

// poolType is the resource a DigitalOcean node pool's stack holds.
const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"

// deployedFleet is fleet's cluster and pool, both deployed on b.
func deployedFleet(t *testing.T, b *deploytest.Backend) string {
	t.Helper()
	dir := fleet(t)
	deployed(t, b, dir)
	return dir
}

// summaryLine is the table's last line, the one that counts the stacks.
func summaryLine(stdout string) string {
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	return lines[len(lines)-1]
}

// A count status did not read is not printed: without --drift nothing compared the cloud, so the
// summary says so instead of "0 drifted".
func TestStatusSaysDriftWasNotCheckedInsteadOfCountingNoneDrifted(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// want is in the summary line; unwanted must not match it.
		want     string
		unwanted *regexp.Regexp
	}{
		{"status without --drift prints no drifted count and names --drift", nil,
			"drift not checked (status --drift)", regexp.MustCompile(`\d+ drifted`)},
		{"status --drift counts the stacks that drifted", []string{"--drift"},
			"0 drifted", regexp.MustCompile(`not checked`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := deploytest.New()
			dir := deployedFleet(t, b)
			r := deployRun(t, b, strings.NewReader(""), false, append([]string{"status", dir}, tt.args...)...)
			line := summaryLine(r.stdout)
			if !strings.Contains(line, tt.want) || tt.unwanted.MatchString(line) {
				t.Errorf("summary %q: want %q and nothing matching %s\nstdout:\n%s\nstderr:\n%s", line, tt.want, tt.unwanted, r.stdout, r.stderr)
			}
		})
	}
}

// NODES and COST are what the cloud runs as the stack last recorded it (its last up, or a refresh
// since), not what the manifest asks: the manifest's figures stand beside them when they differ,
// and -o json carries both apart.
func TestStatusShowsTheNodesAndCostTheStackRecordedWithTheManifestsBesideThem(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, b *deploytest.Backend, dir string)
		// nodes and cost are the pool's cells; jsonNodes and manifestNodes its -o json figures
		// (manifestNodes nil, and manifestCost absent, where the manifest's figures are the same).
		nodes, cost   string
		jsonNodes     string
		manifestNodes any
	}{
		{"a pool whose cloud matches its manifest shows one figure", func(*testing.T, *deploytest.Backend, string) {},
			"2", "$48.00", "2", nil},
		{"a pool the manifest grew since the last up shows the deployed count with the manifest's beside it",
			func(t *testing.T, _ *deploytest.Backend, dir string) {
				edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
			},
			"2 (manifest 3)", "$48.00 (manifest $72.00)", "2", "3"},
		{"a pool scaled down in the console, as a refresh read it back, shows the cloud's count",
			func(t *testing.T, b *deploytest.Backend, _ string) {
				b.Edit("digitaloceankubernetesnodepool/workers", poolType, "workers", "nodeCount", float64(1))
			},
			"1 (manifest 2)", "$24.00 (manifest $48.00)", "1", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := deploytest.New()
			dir := deployedFleet(t, b)
			tt.setup(t, b, dir)
			r := deployRun(t, b, strings.NewReader(""), false, "status", dir)
			row := ""
			for _, line := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(line, "digitaloceankubernetesnodepool/workers ") {
					row = line
				}
			}
			if !strings.Contains(row, "  "+tt.nodes+"  ") || !strings.Contains(row, "  "+tt.cost+"  ") {
				t.Errorf("the pool's row %q: want NODES %q and COST %q\nstdout:\n%s\nstderr:\n%s", row, tt.nodes, tt.cost, r.stdout, r.stderr)
			}
			r = deployRun(t, b, strings.NewReader(""), false, "status", filepath.Join(dir, "pool.yaml"), "-o", "json")
			// Read as the JSON it is, not through the Go types: a field they drop would pass.
			var report struct {
				Stacks []struct {
					Status map[string]any `json:"status"`
				} `json:"stacks"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || len(report.Stacks) != 1 || report.Stacks[0].Status == nil {
				t.Fatalf("status -o json: %v\n%s%s", err, r.stdout, r.stderr)
			}
			status := report.Stacks[0].Status
			if status["nodes"] != tt.jsonNodes || status["manifestNodes"] != tt.manifestNodes || status["cost"] == nil ||
				(status["manifestCost"] == nil) != (tt.manifestNodes == nil) {
				t.Errorf("status -o json: nodes %v, manifestNodes %v, cost %v, manifestCost %v; want nodes %s, manifestNodes %v and the manifest's cost where it differs\n%s",
					status["nodes"], status["manifestNodes"], status["cost"], status["manifestCost"], tt.jsonNodes, tt.manifestNodes, r.stdout)
			}
		})
	}
}
