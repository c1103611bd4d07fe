package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// offeredDOToken and offeredCivoToken are the fakes' tokens, one for each test: what a cloud
// offers is asked once a process for each address and token (upgrade.Offered), and a fake of a
// later test may be given the address of an earlier one, closed since.
func offeredDOToken(t *testing.T) string { return "dop_v1_offered-" + testDigest(t) }

func offeredCivoToken(t *testing.T) string { return "civo-offered-" + testDigest(t) }

func testDigest(t *testing.T) string {
	sum := sha256.Sum256([]byte(t.Name()))
	return hex.EncodeToString(sum[:8])
}

// onlineRun is deployRun with env (the tokens and API URLs) set instead of cleared.
func onlineRun(t *testing.T, b *deploytest.Backend, env map[string]string, args ...string) result {
	t.Helper()
	for _, name := range []string{civodriver.TokenEnv, digitalocean.TokenEnv, civodriver.APIURLEnv, digitalocean.APIURLEnv} {
		t.Setenv(name, env[name])
	}
	var stdout, stderr bytes.Buffer
	a := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr)
	a.f.deploy.backend = b
	terminal := false
	a.f.deploy.interactive = &terminal
	code := a.run(args)
	return result{code, stdout.String(), stderr.String()}
}

// lineOf is the line of text holding what, counted from 1.
func lineOf(t *testing.T, text, what string) int {
	t.Helper()
	i := strings.Index(text, what)
	if i < 0 {
		t.Fatalf("no %q in the text", what)
	}
	return strings.Count(text[:i], "\n") + 1
}

// optionsAsked counts the catalogue calls a cloud received.
func optionsAsked(requests []string) int {
	n := 0
	for _, r := range requests {
		if r == "/v2/kubernetes/options" || r == "/v2/kubernetes/versions" {
			n++
		}
	}
	return n
}

// Promise: sandbox-catalogues-fixed
// Promise: catalogue-warns-and-only-the-cloud-refuses
// Promise: preview-and-up-refuse-what-the-cloud-does-not-offer
// Promise: architecture-pipeline-refuses-before-the-queue
func TestPreviewAndUpRefuseAVersionOrSizeTheCloudDoesNotOfferBeforeTheEngineRuns(t *testing.T) {
	do := readExample(t, "digitaloceankubernetescluster/minimal.yaml")
	civo := readExample(t, "civokubernetescluster/minimal.yaml")
	tests := []struct {
		name string
		// text runs against both fakes, DigitalOcean's and Civo's; setDO changes what
		// DigitalOcean offers.
		text  string
		setDO func(*fakedo.DO)
		// token false runs without one: nothing is asked, the engine runs.
		token bool
		// refuses is what stderr says, with the line of at; "" when nothing is refused.
		refuses, at string
		hint        string
	}{
		{name: "a DigitalOcean version typo names the slug it was one edit from", token: true,
			text:    strings.Replace(do, "1.31.1-do.5", "1.31.1-do.6", 1),
			refuses: `spec.kubernetesVersion: version "1.31.1-do.6" is not offered by DigitalOcean now: did you mean 1.31.1-do.5?`,
			at:      "kubernetesVersion: 1.31.1-do.6", hint: "its API lists 1.33.1-do.0, 1.32.2-do.0"},
		{name: "a slug DigitalOcean stopped offering is refused though the table lists it", token: true, text: do,
			setDO:   func(d *fakedo.DO) { d.Account().SetVersions("1.32.2-do.0", "1.33.1-do.0") },
			refuses: `spec.kubernetesVersion: version "1.31.1-do.5" is not offered by DigitalOcean now: it lists no 1.31 version; its minors are 1.32, 1.33.`,
			at:      "kubernetesVersion: 1.31.1-do.5"},
		{name: "a size DigitalOcean does not offer is refused at the pool's size", token: true, text: do,
			setDO:   func(d *fakedo.DO) { d.Account().SetSizes("s-4vcpu-8gb", "s-2vcpu-2gb") },
			refuses: `spec.defaultNodePool.size: size "s-2vcpu-4gb" is not offered by DigitalOcean now: did you mean s-2vcpu-2gb?`,
			at:      "size: s-2vcpu-4gb", hint: "its API lists s-4vcpu-8gb, s-2vcpu-2gb"},
		{name: "a Civo version typo names the version of its minor", token: true,
			text:    strings.Replace(civo, "kubernetesVersion: 1.30.5-k3s1", "kubernetesVersion: 1.31.2-k3s1", 1),
			refuses: `spec.kubernetesVersion: version "1.31.2-k3s1" is not offered by Civo now: did you mean 1.31.1-k3s1?`,
			at:      "kubernetesVersion: 1.31.2-k3s1"},
		{name: "a version Civo lists as deprecated is not offered", token: true,
			text:    strings.Replace(civo, "kubernetesVersion: 1.30.5-k3s1", "kubernetesVersion: 1.27.1-k3s1", 1),
			refuses: `version "1.27.1-k3s1" is not offered by Civo now: it lists no 1.27 version`, at: "kubernetesVersion: 1.27.1-k3s1"},
		{name: "a Civo version it offers goes on", token: true, text: civo},
		{name: "a DigitalOcean version it offers goes on", token: true, text: do},
		{name: "without a token nothing is asked and the typo goes to the engine",
			text: strings.Replace(do, "1.31.1-do.5", "1.31.1-do.6", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fakedo.New(t, offeredDOToken(t))
			// Not pinned to one region: the look-up before a create asks in the region opened.
			c := fakecivo.New(t, offeredCivoToken(t), "")
			if tt.setDO != nil {
				tt.setDO(d)
			}
			env := map[string]string{digitalocean.APIURLEnv: d.URL(), civodriver.APIURLEnv: c.URL()}
			if tt.token {
				env[digitalocean.TokenEnv], env[civodriver.TokenEnv] = offeredDOToken(t), offeredCivoToken(t)
			}
			file := filepath.Join(writeFiles(t, map[string]string{"cluster.yaml": tt.text}), "cluster.yaml")
			for _, op := range [][]string{{"preview", file}, {"up", file, "--yes"}} {
				b := deploytest.New()
				r := onlineRun(t, b, env, op...)
				if tt.refuses == "" {
					if r.code != exitcode.OK || len(b.Calls()) == 0 {
						t.Errorf("%s: exit %d after %d engine calls, want it run\n%s", op[0], r.code, len(b.Calls()), r.stderr)
					}
					continue
				}
				at := fmt.Sprintf("%s:%d:", file, lineOf(t, tt.text, tt.at))
				if r.code != exitcode.Invalid || !strings.Contains(r.stderr, at) || !strings.Contains(r.stderr, tt.refuses) ||
					!strings.Contains(r.stderr, tt.hint) {
					t.Errorf("%s: exit %d, want %d and %s %q (%s)\n%s", op[0], r.code, exitcode.Invalid, at, tt.refuses, tt.hint, r.stderr)
				}
				if calls := b.Calls(); len(calls) > 0 {
					t.Errorf("%s: the engine ran after a refusal: %v", op[0], calls)
				}
				if strings.Contains(r.stderr, offeredDOToken(t)) || strings.Contains(r.stderr, offeredCivoToken(t)) {
					t.Errorf("%s: stderr names a token", op[0])
				}
			}
			var asked []string
			for _, r := range append(d.Requests("GET"), c.Requests("GET")...) {
				asked = append(asked, r.Path)
			}
			// preview and up ran in this one process: the cloud is asked once.
			if want := map[bool]int{true: 1, false: 0}[tt.token]; optionsAsked(asked) != want {
				t.Errorf("the clouds were asked their catalogue %d times, want %d (one call a process): %v", optionsAsked(asked), want, asked)
			}
		})
	}
}

// Promise: preview-and-up-refuse-what-the-cloud-does-not-offer
func TestACloudIsAskedOncePerRunAndWhatAStackRunsIsKeptThoughNoLongerOffered(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	d := fakedo.New(t, offeredDOToken(t))
	env := func(d *fakedo.DO) map[string]string {
		return map[string]string{digitalocean.TokenEnv: offeredDOToken(t), digitalocean.APIURLEnv: d.URL()}
	}
	// A cluster and its pool, both DigitalOcean's: one call.
	if r := onlineRun(t, b, env(d), "up", dir, "--yes"); r.code != exitcode.OK {
		t.Fatalf("up: exit %d\n%s", r.code, r.stderr)
	}
	var asked []string
	for _, r := range d.Requests("GET") {
		asked = append(asked, r.Path)
	}
	if n := optionsAsked(asked); n != 1 {
		t.Errorf("DigitalOcean was asked its options %d times for two manifests, want once", n)
	}
	// DigitalOcean drops 1.31 and the pool's size: the stacks running them go on as they are.
	later := fakedo.New(t, offeredDOToken(t))
	later.Account().SetVersions("1.32.2-do.0", "1.33.1-do.0")
	later.Account().SetSizes("s-4vcpu-8gb")
	if r := onlineRun(t, b, env(later), "preview", dir); r.code != exitcode.OK {
		t.Errorf("preview of what the stacks run: exit %d, want 0\n%s", r.code, r.stderr)
	}
	// A change to another version it no longer offers is refused.
	edit(t, dir, "cluster.yaml", "1.31.1-do.5", "1.31.9-do.2")
	r := onlineRun(t, b, env(later), "preview", dir)
	if r.code != exitcode.Invalid || !strings.Contains(r.stderr, `version "1.31.9-do.2" is not offered by DigitalOcean now`) ||
		strings.Contains(r.stderr, "size") {
		t.Errorf("preview of a version DigitalOcean dropped: exit %d, want 1 naming the version only\n%s", r.code, r.stderr)
	}
}

// Promise: region-warns-offline-refused-by-the-clouds-list
func TestARegionTheCloudMayHaveOpenedWarnsOfflineAndOnlyTheCloudsOwnListRefusesIt(t *testing.T) {
	do := readExample(t, "digitaloceankubernetescluster/minimal.yaml")
	civo := readExample(t, "civokubernetescluster/minimal.yaml")
	tests := []struct {
		name string
		// text is a DigitalOcean manifest unless civo.
		text string
		civo bool
		// opened is a region the fake clouds offer besides their own.
		opened string
		// warns is what validate (offline) says, exit 0; "" for nothing.
		warns string
		// refuses is what preview says with a token, at the value of region:, exit 1; "" when
		// the engine runs.
		refuses string
	}{
		{name: "a region the tables lack warns offline and is refused by the cloud that lacks it too",
			text:    strings.Replace(do, "region: fra1", "region: xyz9", 1),
			warns:   `:13:11: warning: spec.region: region "xyz9" is not in the digitalocean catalogue`,
			refuses: `:13:11: spec.region: region "xyz9" is not offered by DigitalOcean now`},
		{name: "a region near a listed one says which it was meant to be",
			text:    strings.Replace(do, "region: fra1", "region: fra2", 1),
			warns:   `did you mean fra1?`,
			refuses: `:13:11: spec.region: region "fra2" is not offered by DigitalOcean now: did you mean fra1?`},
		{name: "a region DigitalOcean opened after the release is deployed",
			text: strings.Replace(do, "region: fra1", "region: xyz9", 1), opened: "xyz9",
			warns: `region "xyz9" is not in the digitalocean catalogue`},
		{name: "a region Civo lacks is refused",
			text: strings.Replace(civo, "region: fra1", "region: fra2", 1), civo: true,
			warns:   `region "fra2" is not in the civo catalogue`,
			refuses: `:13:11: spec.region: region "fra2" is not offered by Civo now: did you mean fra1?`},
		{name: "a region Civo opened after the release is deployed",
			text: strings.Replace(civo, "region: fra1", "region: xyz9", 1), civo: true, opened: "xyz9",
			warns: `region "xyz9" is not in the civo catalogue`},
		{name: "a listed region says nothing and goes on", text: do},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(writeFiles(t, map[string]string{"cluster.yaml": tt.text}), "cluster.yaml")
			r := run(t, "", "validate", file)
			if r.code != exitcode.OK || (tt.warns == "") != !strings.Contains(r.stdout+r.stderr, "warning") ||
				!strings.Contains(r.stdout+r.stderr, tt.warns) {
				t.Errorf("validate: exit %d, want 0 and %q\n%s%s", r.code, tt.warns, r.stdout, r.stderr)
			}

			d := fakedo.New(t, offeredDOToken(t))
			// Not pinned to one region: the look-up before a create asks in the region opened.
			c := fakecivo.New(t, offeredCivoToken(t), "")
			if tt.opened != "" {
				d.Account().SetRegions(append(slices.Clone(fakedo.DefaultRegions), tt.opened)...)
				c.Catalogue().SetRegions(append(slices.Clone(fakecivo.DefaultRegions), civogo.Region{Code: tt.opened, Name: "Tomorrow 1"})...)
			}
			env := map[string]string{digitalocean.APIURLEnv: d.URL(), civodriver.APIURLEnv: c.URL(),
				digitalocean.TokenEnv: offeredDOToken(t), civodriver.TokenEnv: offeredCivoToken(t)}
			b := deploytest.New()
			r = onlineRun(t, b, env, "preview", file)
			if tt.refuses == "" {
				if r.code != exitcode.OK || len(b.Calls()) == 0 {
					t.Errorf("preview: exit %d after %d engine calls, want it run\n%s%s", r.code, len(b.Calls()), r.stdout, r.stderr)
				}
				return
			}
			if r.code != exitcode.Invalid || !strings.Contains(r.stderr, file+tt.refuses) || len(b.Calls()) > 0 {
				t.Errorf("preview: exit %d after %d engine calls, want %d and %q\n%s", r.code, len(b.Calls()), exitcode.Invalid,
					file+tt.refuses, r.stderr)
			}
		})
	}
}
