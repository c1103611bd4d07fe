//go:build e2e

package e2e_test

import (
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
)

// neverReadBack tells a property of a resource of type typ that the provider never reads back
// (the kinds' effects tables, NeverReadBack: registryIntegration and destroyAllAssociatedResources
// of a DigitalOcean cluster), so an import leaves it out of the state and the next preview lists it
// as updated to the manifest's value, yet the update sends no request for it. The recorded
// requests hold that.
func neverReadBack(typ, prop string) bool {
	for _, k := range registry.Kinds() {
		for _, t := range k.Effects.Types {
			if t == typ && k.Effects.NeverReadBack[prop] {
				return true
			}
		}
	}
	return false
}

// TestAnAccountIsTakenOverWithDiscoverAdoptAndUp is issue 34 from end to end: two accounts made
// by doctl, the console and the civo CLI are taken over with the commands a user types, and the
// clouds receive nothing but tag updates of what already runs.
// Promise: drift-is-what-the-cloud-changed
// Promise: adopt-then-no-drift
// Promise: adopt-then-preview-updates-tags-only
func TestAnAccountIsTakenOverWithDiscoverAdoptAndUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedAccounts()

	// What must stay as it was: every cluster's shape (all but tags), and the ids of every
	// cluster and pool the clouds may receive a tag update for.
	doBefore, civoBefore, allowed := seededShapesAndTagUpdates(t, e)
	untouched := func(when string) {
		t.Helper()
		for id, before := range doBefore {
			now, ok := e.do.Cluster(id)
			if !ok || doShape(now) != before {
				t.Errorf("%s changed more than tags on DigitalOcean:\n was %s\n now %s", when, before, doShape(now))
			}
		}
		for id, before := range civoBefore {
			now, ok := e.civo.Cluster(id)
			if !ok || civoShape(now) != before {
				t.Errorf("%s changed more than tags on Civo:\n was %s\n now %s", when, before, civoShape(now))
			}
		}
		for _, m := range append(adoptMutations(e.do.Requests("")), adoptMutations(e.civo.Requests(""))...) {
			if !slices.Contains(allowed, m) {
				t.Errorf("%s: the clouds received %s, want only tag updates of the seeded clusters and pools", when, m)
			}
		}
	}
	e.do.Reset()
	e.civo.Reset()

	// The three commands of the docs, as a user types them.
	do, civo := filepath.Join("accounts", "digitalocean"), filepath.Join("accounts", "civo")
	for cloud, dir := range map[string]string{"digitalocean": do, "civo": civo} {
		if r, code := e.clusterplane("discover", cloud, "--dir", dir); code != 0 {
			t.Fatalf("discover %s = %d\n%s", cloud, code, r)
		}
	}
	untouched("discover")
	adoptBothAccounts(t, e, do, civo)
	untouched("adopt")

	checkPreviewAndDriftAfterAdoptFindOnlyTags(t, e, do, civo)
	r, code := e.clusterplane("up", do, civo, "--yes")
	if code != 0 {
		t.Fatalf("up after adopt = %d\n%s", code, r)
	}
	if strings.Contains(r.stdout, "changed in the cloud") || !strings.Contains(r.stdout, "set what the stack took over as the cloud had it") {
		t.Errorf("up after adopt names a change in the cloud, or not the tags it sets for the first time:\n%s", r)
	}
	untouched("up after adopt")
	// Every stack clean: counted in the summary as unchanged, none listed.
	if r, code := e.clusterplane("drift", do, civo); code != 0 || !regexp.MustCompile(`^Stacks: [0-9]+ unchanged( \([0-9]+ not run\))?\. `).MatchString(r.stdout) {
		t.Errorf("drift after up = %d, want clean\n%s", code, r)
	}
	// The take-over has settled: the scan judges the adopted DigitalOcean clusters from one list,
	// as any other stack, and the engine reads none of them.
	e.do.Reset()
	if r, code := e.clusterplane("drift", do, civo); code != 0 || strings.Contains(r.stderr, "adopted with changes left") ||
		strings.Contains(r.stderr, "differing") || len(e.clusterReads()) != 0 {
		t.Errorf("a second drift after up = %d, read clusters %v one by one; want the scan to judge them, no engine\n%s", code, e.clusterReads(), r)
	}
	for _, req := range append(e.do.Requests(http.MethodPost), e.do.Requests(http.MethodDelete)...) {
		t.Errorf("DigitalOcean received %s %s", req.Method, req.Path)
	}
	for _, req := range append(e.civo.Requests(http.MethodPost), e.civo.Requests(http.MethodDelete)...) {
		t.Errorf("Civo received %s %s", req.Method, req.Path)
	}
}

// seededShapesAndTagUpdates is what must stay as it was: every seeded cluster's shape (all but
// tags) by id on each cloud, and the tag updates the clouds may receive, "PUT path", one for
// each cluster and pool.
func seededShapesAndTagUpdates(t *testing.T, e *env) (doBefore, civoBefore map[string]string, allowed []string) {
	t.Helper()
	doBefore, civoBefore = map[string]string{}, map[string]string{}
	for _, c := range e.do.Clusters() {
		doBefore[c.ID] = doShape(c)
		allowed = append(allowed, "PUT /v2/kubernetes/clusters/"+c.ID)
		for _, p := range c.NodePools {
			allowed = append(allowed, "PUT /v2/kubernetes/clusters/"+c.ID+"/node_pools/"+p.ID)
		}
	}
	for _, c := range e.civo.Clusters() {
		civoBefore[c.ID] = civoShape(c)
		allowed = append(allowed, "PUT /v2/kubernetes/clusters/"+c.ID)
	}
	if len(doBefore) != 3 || len(civoBefore) != 2 {
		t.Fatalf("seeded %d DigitalOcean and %d Civo clusters, want 3 and 2", len(doBefore), len(civoBefore))
	}
	return doBefore, civoBefore, allowed
}

// adoptBothAccounts adopts the discovered folders of both clouds and checks every stack was taken
// over, with nothing but tags left for the next up.
func adoptBothAccounts(t *testing.T, e *env, do, civo string) {
	t.Helper()
	rep, code, r := e.adoptReport("adopt", do, civo)
	if code != 0 {
		t.Fatalf("adopt %s %s = %d, want 0\n%s", do, civo, code, r)
	}
	if len(rep.Stacks) != 9 {
		t.Errorf("adopt reported %d stacks, want the 5 clusters and 4 pools\n%s", len(rep.Stacks), r)
	}
	for _, s := range rep.Stacks {
		if s.Outcome != "done" {
			t.Errorf("%s: adopt outcome %q, want done\n%s", s.File, s.Outcome, r)
		}
		for _, f := range s.InPlace {
			if !strings.HasSuffix(f.Field, "tags") {
				t.Errorf("%s: adopt lists %s for the next up, want only tags", s.File, f.Field)
			}
		}
	}
}

// checkPreviewAndDriftAfterAdoptFindOnlyTags checks that after adopt the preview would update at
// most tags (and what the provider never reads back), puts nothing back, and drift finds no more.
func checkPreviewAndDriftAfterAdoptFindOnlyTags(t *testing.T, e *env, do, civo string) {
	t.Helper()
	rep, code, r := e.adoptReport("preview", do, civo)
	if code != 0 {
		t.Fatalf("preview after adopt = %d\n%s", code, r)
	}
	// Nobody changed anything in the clouds: what adopt left (clusterplane's tags) is what the
	// first up sets, never something put back.
	if strings.Contains(r.stdout, `"putBack"`) {
		t.Errorf("preview after adopt says it would put back what changed in the cloud:\n%s", r)
	}
	for _, s := range rep.Stacks {
		for _, res := range s.Resources {
			if res.Operation != "update" && res.Operation != "same" {
				t.Errorf("%s: preview would %s %s %s, want at most in-place updates", s.File, res.Operation, res.Type, res.Name)
			}
			for _, p := range res.Properties {
				if !strings.Contains(strings.ToLower(p), "tags") && !neverReadBack(res.Type, p) {
					t.Errorf("%s: preview would update %s of %s %s, want only tags", s.File, p, res.Type, res.Name)
				}
			}
		}
	}
	// drift before up: no drift (adopt took the cloud over as it was), and what adopt left for
	// the next up (the tags) pending, the same fields the preview sets; status --drift in sync.
	sets := map[string]string{}
	for _, s := range rep.Stacks {
		for _, f := range s.Sets {
			sets[s.Stack] += f.Field + " "
		}
	}
	drift, code, r := e.adoptReport("drift", do, civo)
	if code != 0 {
		t.Errorf("drift after adopt = %d, want 0: what adopt took over is no drift\n%s", code, r)
	}
	pending := 0
	for _, s := range drift.Stacks {
		for _, f := range s.Drift {
			t.Errorf("%s: drift after adopt finds %s drifted (cloud %v, manifest %v), want none", s.File, f.Field, f.Live, f.Manifest)
		}
		said := ""
		for _, f := range s.Pending {
			pending++
			said += f.Field + " "
			if !strings.Contains(strings.ToLower(f.Field), "tags") {
				t.Errorf("%s: drift after adopt finds %s pending, want at most tags", s.File, f.Field)
			}
		}
		if said != sets[s.Stack] {
			t.Errorf("%s: drift after adopt says %q pending, preview %q set: want the same", s.Stack, said, sets[s.Stack])
		}
	}
	if pending == 0 {
		t.Errorf("drift after adopt lists nothing pending, want the tags adopt left for the next up:\n%s", r)
	}
	// Exit 4 would be Ready's word (a stack behind its manifest), never Drifted's here.
	if r, code := e.clusterplane("status", do, civo, "--drift"); code != 0 && code != 4 || strings.Contains(r.stdout, "ChangesPending") ||
		!strings.Contains(r.stdout, "0 drifted") {
		t.Errorf("status --drift after adopt = %d, want no stack drifted\n%s", code, r)
	}
}
