package importscheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
)

// linked is what the packages matching patterns link (go list -deps, test files aside): each
// package with the packages it imports.
func linked(t *testing.T, patterns ...string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, patterns...)...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", strings.Join(patterns, " "), err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		graph[fields[0]] = fields[1:]
	}
	return graph
}

// chain is the shortest import chain from one of roots to a package that bad says is one, never
// through a package skip says is passed over; nil when there is none.
func chain(graph map[string][]string, roots []string, bad, skip func(string) bool) []string {
	prev := map[string]string{}
	var queue []string
	for _, r := range roots {
		prev[r] = ""
		queue = append(queue, r)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if bad(n) {
			var path []string
			for at := n; at != ""; at = prev[at] {
				path = append([]string{at}, path...)
			}
			return path
		}
		for _, m := range graph[n] {
			if _, ok := prev[m]; !ok && !skip(m) {
				prev[m] = n
				queue = append(queue, m)
			}
		}
	}
	return nil
}

// under are the packages of graph whose import path begins with module+prefix.
func under(graph map[string][]string, prefix string) []string {
	var out []string
	for p := range graph {
		if strings.HasPrefix(p, module+prefix) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// clients are each cloud's Go API client and Pulumi provider SDK, by module path prefix: what a
// package links when it can reach the cloud.
func clients(t *testing.T) map[cloudfacts.ID][]string {
	t.Helper()
	apis := map[cloudfacts.ID]string{"civo": "github.com/civo/civogo", "digitalocean": "github.com/digitalocean/godo"}
	out := map[cloudfacts.ID][]string{}
	for _, c := range cloudlist.All() {
		api, ok := apis[c.ID()]
		if !ok {
			t.Fatalf("no Go client of %q is listed here: add the module its driver reaches it through", c.ID())
		}
		out[c.ID()] = []string{api, c.ProviderSDK()}
	}
	return out
}

func inModule(prefixes []string) func(string) bool {
	return func(p string) bool {
		for _, prefix := range prefixes {
			if p == prefix || strings.HasPrefix(p, prefix+"/") {
				return true
			}
		}
		return false
	}
}

// What a manifest is and what a change costs and does are read and computed, never asked of a
// cloud or of a Pulumi engine: pkg/manifest, pkg/change and pkg/redact link no cloud's client
// and no HTTP at all. Reading a stack's config and its references is the Pulumi room's
// (pkg/pulumi/programinput, pkg/pulumi/stackref).
func TestManifestsChangesAndTheRedactorLinkNoCloudClientAndNoHTTP(t *testing.T) {
	graph := linked(t, "./pkg/change/...", "./pkg/manifest/...", "./pkg/redact/...")
	var every []string
	for _, cs := range clients(t) {
		every = append(every, cs...)
	}
	netHTTP := func(p string) bool { return p == "net/http" }
	none := func(string) bool { return false }
	for _, folder := range []string{"pkg/change/", "pkg/manifest/", "pkg/redact"} {
		roots := under(graph, folder)
		if len(roots) == 0 {
			t.Fatalf("no package under %s was listed", folder)
		}
		for _, root := range roots {
			if c := chain(graph, []string{root}, inModule(every), none); c != nil {
				t.Errorf("%s links a cloud's client:\n\t%s", root, strings.Join(c, "\n\t→ "))
			}
			if c := chain(graph, []string{root}, netHTTP, none); c != nil {
				t.Errorf("%s links net/http:\n\t%s", root, strings.Join(c, "\n\t→ "))
			}
		}
	}
}

// A kind's program (iac/pulumi/<kind>, what `pulumi up` in its folder builds) deploys to one
// cloud and links only that cloud's driver, client and provider SDK: another cloud's would be
// built into every program for nothing.
func TestEachKindsProgramLinksNoOtherCloudsClient(t *testing.T) {
	mains, err := filepath.Glob(filepath.Join("..", "..", "iac", "pulumi", "*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mains) == 0 {
		t.Fatal("no program found under iac/pulumi")
	}
	cs := clients(t)
	for _, main := range mains {
		dir := filepath.Base(filepath.Dir(main))
		t.Run(dir, func(t *testing.T) {
			var own cloudfacts.ID
			for id := range cs {
				if strings.HasPrefix(dir, string(id)) {
					own = id
				}
			}
			if own == "" {
				t.Fatalf("iac/pulumi/%s: its name begins with no cloud's ID", dir)
			}
			pkg := module + "iac/pulumi/" + dir
			graph := linked(t, "./iac/pulumi/"+dir)
			none := func(string) bool { return false }
			for id, prefixes := range cs {
				if id == own {
					continue
				}
				other := inModule(append([]string{module + "pkg/cloud/" + string(id)}, prefixes...))
				if c := chain(graph, []string{pkg}, other, none); c != nil {
					t.Errorf("the %s program links %s's driver or client:\n\t%s", own, id, strings.Join(c, "\n\t→ "))
				}
			}
		})
	}
}

// serve's store keeps objects, statuses and tokens as the API wrote them: it reads no body and
// asks no cloud, so it links nothing under pkg/cloud, the drivers' list (pkg/cloud/clouds)
// included. A body needs only what each cloud is (its ID, name and kinds), so pkg/serve/body
// reads the clouds' facts (pkg/cloudfacts/cloudlist) and links no driver list either.
func TestServesStoreLinksNoCloudAndItsBodiesNoDriverList(t *testing.T) {
	none := func(string) bool { return false }
	tests := []struct {
		name, pkg string
		never     []string
	}{
		{"the store links nothing under pkg/cloud", "pkg/serve/store", []string{module + "pkg/cloud"}},
		{"a body links no driver list", "pkg/serve/body", []string{module + "pkg/cloud/clouds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			graph := linked(t, "./"+tt.pkg)
			if c := chain(graph, []string{module + tt.pkg}, inModule(tt.never), none); c != nil {
				t.Errorf("%s links %s:\n\t%s", tt.pkg, strings.Join(tt.never, ", "), strings.Join(c, "\n\t→ "))
			}
		})
	}
}
