package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// Promise: readme-diff-names-refused-changes-and-cost
func TestDiffOfAPoolGoingFromTwoToThreeNodesSaysWhatItAddsAMonthAndFromWhichPrices(t *testing.T) {
	doPool := strings.Replace(readExample(t, "digitaloceankubernetesnodepool/minimal.yaml"), "size: s-4vcpu-8gb", "size: s-2vcpu-4gb", 1)
	civoPool := readExample(t, "civokubernetesnodepool/minimal.yaml")
	dir := writeFiles(t, map[string]string{
		"do.yaml": doPool, "do-scaled.yaml": strings.Replace(doPool, "nodeCount: 2", "nodeCount: 3", 1),
		"civo.yaml": civoPool, "civo-scaled.yaml": strings.Replace(civoPool, "nodeCount: 2", "nodeCount: 3", 1),
	})
	const token = "dop_v1_diff-cost-token"
	do := fakedo.New(t, token)
	do.Account().SetPrice("s-2vcpu-4gb", 26.5)
	tests := []struct {
		name     string
		old, new string
		// api points the DigitalOcean token and URL at the loopback cloud.
		api  bool
		says []string
	}{
		{"a DigitalOcean pool without a token is priced from the table", "do.yaml", "do-scaled.yaml", false,
			[]string{"monthly cost: +$24.00/month ($48.00 → $72.00/month", cost.TableSource, cost.TableDate}},
		{"a DigitalOcean pool with a token is priced by the sizes API", "do.yaml", "do-scaled.yaml", true,
			[]string{"monthly cost: +$26.50/month ($53.00 → $79.50/month", "DigitalOcean sizes API"}},
		{"a Civo pool is priced from the table, with its date", "civo.yaml", "civo-scaled.yaml", true,
			[]string{"monthly cost: +$20.00/month", cost.TableSource, cost.TableDate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, env := range []string{digitalocean.TokenEnv, digitalocean.APIURLEnv, civo.TokenEnv, civo.APIURLEnv} {
				t.Setenv(env, "")
			}
			if tt.api {
				t.Setenv(digitalocean.TokenEnv, token)
				t.Setenv(digitalocean.APIURLEnv, do.URL())
			}
			for _, format := range []string{"text", "json"} {
				var stdout, stderr bytes.Buffer
				code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run(
					[]string{"diff", filepath.Join(dir, tt.old), filepath.Join(dir, tt.new), "-o", format})
				if code != exitcode.OK {
					t.Fatalf("diff -o %s: exit %d\n%s", format, code, stderr.String())
				}
				if strings.Contains(stdout.String()+stderr.String(), token) {
					t.Errorf("diff -o %s prints the token", format)
				}
				if format == "text" {
					for _, s := range tt.says {
						if !strings.Contains(stdout.String(), s) {
							t.Errorf("diff does not say %q:\n%s", s, stdout.String())
						}
					}
					continue
				}
				var out struct {
					Cost *cost.Delta `json:"cost"`
				}
				if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Cost == nil || out.Cost.Min <= 0 || out.Cost.New.Source == "" {
					t.Errorf("diff -o json has no cost (%v):\n%s", err, stdout.String())
				}
			}
		})
	}
}

func TestPlanSaysTheManifestsMonthlyCostAndItsPrices(t *testing.T) {
	file := filepath.Join(examples, "civokubernetesnodepool", "minimal.yaml")
	r := run(t, "", "plan", file)
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "MONTHLY COST\n  $40.00/month (prices: "+cost.TableSource+", "+cost.TableDate+")") {
		t.Errorf("plan: exit %d, no monthly cost of two g4s.kube.medium nodes from the table:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "", "plan", file, "-o", "json")
	var out struct {
		Cost *cost.Estimate `json:"cost"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Cost == nil || out.Cost.Min != 40 || out.Cost.Date != cost.TableDate {
		t.Errorf("plan -o json: cost %+v (%v)", out.Cost, err)
	}
}

// Promise: catalogue-warns-and-only-the-cloud-refuses
// Promise: catalogue-warning-keeps-the-exit-code
func TestValidateWarnsOfASizeTheCatalogueDoesNotListAndStillExitsZero(t *testing.T) {
	pool := readExample(t, "digitaloceankubernetesnodepool/minimal.yaml")
	dir := writeFiles(t, map[string]string{
		"typo.yaml":  strings.Replace(pool, "size: s-4vcpu-8gb", "size: s-2vcpu-4gbb", 1),
		"gpu.yaml":   strings.Replace(pool, "size: s-4vcpu-8gb", "size: gpu-h100x1-80gb", 1),
		"plain.yaml": pool,
	})
	const token = "dop_v1_catalogue-token"
	do := fakedo.New(t, token)
	do.Account().SetSizes("s-2vcpu-4gb", "gpu-h100x1-80gb") // the cloud does not offer s-4vcpu-8gb
	tests := []struct {
		name     string
		file     string
		api      bool
		warns    string
		warnsNot bool
	}{
		{"a misspelt size warns offline", "typo.yaml", false, `size "s-2vcpu-4gbb" is not in the digitalocean catalogue (` + cost.TableSource, false},
		{"a GPU size the table does not price is no warning", "gpu.yaml", false, "", true},
		{"a size the table lists is no warning offline", "plain.yaml", false, "", true},
		// validate is an offline check: with a token too it reads the table, never the cloud (an
		// unreachable cloud made it wait out the API's retries). preview and up ask the cloud.
		{"with a token, validate still reads the table and asks no cloud", "typo.yaml", true,
			`size "s-2vcpu-4gbb" is not in the digitalocean catalogue (` + cost.TableSource, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, env := range []string{digitalocean.TokenEnv, digitalocean.APIURLEnv} {
				t.Setenv(env, "")
			}
			if tt.api {
				t.Setenv(digitalocean.TokenEnv, token)
				t.Setenv(digitalocean.APIURLEnv, do.URL())
			}
			var stdout, stderr bytes.Buffer
			code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run([]string{"validate", filepath.Join(dir, tt.file)})
			if code != exitcode.OK || !strings.Contains(stdout.String(), "valid") {
				t.Errorf("exit %d, want 0 (a warning changes no exit code)\n%s%s", code, stdout.String(), stderr.String())
			}
			if tt.warnsNot && strings.Contains(stderr.String(), "warning") || !tt.warnsNot && !strings.Contains(stderr.String(), tt.warns) {
				t.Errorf("stderr %q, want a warning %q: %t", stderr.String(), tt.warns, !tt.warnsNot)
			}
			if strings.Contains(stderr.String(), token) {
				t.Error("the warning names the token")
			}
			if asked := do.Requests("GET"); len(asked) > 0 {
				t.Errorf("validate asked the cloud: %v", asked)
			}
		})
	}
}

// A user who reads only validate's help learns that a size or version missing from the
// catalogue is a warning under a rule id, and why it does not fail the run.
func TestValidatesHelpSaysWhatTheCatalogueWarnsOf(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run([]string{"validate", "--help"}); code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	help := strings.Join(strings.Fields(stdout.String()), " ")
	for _, want := range []string{"catalogue.size", "catalogue.version", "is a warning", "leaves the exit code as it is",
		"refuse what it does not"} {
		if !strings.Contains(help, want) {
			t.Errorf("validate --help does not say %q:\n%s", want, stdout.String())
		}
	}
}
