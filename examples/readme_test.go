package examples_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	docluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"google.golang.org/protobuf/proto"
)

// The tests here hold the README and docs/, the examples' comments and the proto comments to what
// the code does, so that a reader who copies a command or an example gets what the text promises.

const root = ".."

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// doc returns the text of the docs/ pages given, one after the other.
func doc(t *testing.T, pages ...string) string {
	t.Helper()
	var texts []string
	for _, page := range pages {
		texts = append(texts, readFile(t, filepath.Join(root, "docs", page)))
	}
	return strings.Join(texts, "\n")
}

// codeBlocks returns the fenced blocks of markdown text in language lang.
func codeBlocks(text, lang string) []string {
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^\\s*```"+regexp.QuoteMeta(lang)+"\\n(.*?)^\\s*```").FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// blockWith returns the single code block of lang that contains marker.
func blockWith(t *testing.T, text, lang, marker string) string {
	t.Helper()
	var found []string
	for _, b := range codeBlocks(text, lang) {
		if strings.Contains(b, marker) {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		t.Fatalf("the docs have %d %s blocks with %q, want 1", len(found), lang, marker)
	}
	return found[0]
}

// sentences splits prose, markdown or comments, into sentences with comment markers and line
// breaks taken out, so that a sentence wrapped over comment lines reads as one.
func sentences(text string) []string {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "/#-* ")
		lines = append(lines, line)
	}
	joined := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	return regexp.MustCompile(`[.!?] `).Split(joined, -1)
}

// prose is the text of a file meant for readers: all of markdown, the comments of code and YAML.
func prose(path, text string) string {
	marker := "//"
	switch filepath.Ext(path) {
	case ".md":
		return text
	case ".yaml", ".yml":
		marker = "#"
	}
	var comments []string
	for _, line := range strings.Split(text, "\n") {
		if _, comment, ok := strings.Cut(line, marker); ok {
			comments = append(comments, comment)
		} else {
			// A line of code ends a sentence left open.
			comments = append(comments, ".")
		}
	}
	return strings.Join(comments, "\n")
}

func TestTheDocsDiffExampleIsWhatDiffPrintsForTheSameChange(t *testing.T) {
	// The example changes the manifest of docs/manifests.md; docs/deploying.md shows the diff.
	text := doc(t, "manifests.md", "deploying.md")
	var documented struct {
		Changes []struct {
			Path, Effect, Resource string
			Old, New               any
		}
		Replaces, Refuses bool
	}
	if err := json.Unmarshal([]byte(blockWith(t, text, "json", `"changes"`)), &documented); err != nil {
		t.Fatalf("the docs' diff JSON example is not JSON: %v", err)
	}
	if len(documented.Changes) != 1 {
		t.Fatalf("the docs' diff example has %d changes, want the one it explains", len(documented.Changes))
	}
	change := documented.Changes[0]
	oldText := blockWith(t, text, "yaml", "apiVersion: digitalocean.clusterplane.dev/v1")
	oldValue, newValue := fmt.Sprint(change.Old), fmt.Sprint(change.New)
	if strings.Count(oldText, oldValue) != 1 {
		t.Fatalf("the docs' manifest should hold the diff example's old value %q once", oldValue)
	}
	newText := strings.Replace(oldText, oldValue, newValue, 1)

	var oldInput, newInput docluster.DigitalOceanKubernetesClusterStackInput
	if err := stackinput.Parse([]byte(oldText), "docs old", &oldInput); err != nil {
		t.Fatal(err)
	}
	if err := stackinput.Parse([]byte(newText), "docs new", &newInput); err != nil {
		t.Fatal(err)
	}
	got, err := diff.Compare(registry.Kinds().Table("DigitalOceanKubernetesCluster"), &oldInput, &newInput)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Changes) != 1 {
		t.Fatalf("diff found %d changes, want 1: %+v", len(got.Changes), got.Changes)
	}
	for _, c := range []struct {
		what     string
		readme   any
		diffSays any
	}{
		{"path", change.Path, got.Changes[0].Path},
		{"effect", change.Effect, string(got.Changes[0].Effect)},
		{"resource", change.Resource, got.Changes[0].Resource},
		{"replaces", documented.Replaces, got.Replaces},
		{"refuses", documented.Refuses, got.Refuses},
	} {
		if c.readme != c.diffSays {
			t.Errorf("the docs' diff example shows %s %v, diff prints %v", c.what, c.readme, c.diffSays)
		}
	}
}

func TestNoKeyTheDocsShowInPlanJSONIsNullInAnyExamplesPlan(t *testing.T) {
	isolate(t)
	var documented struct {
		Resources []map[string]any
		Outputs   map[string]map[string]any
	}
	if err := json.Unmarshal([]byte(blockWith(t, doc(t, "manifests.md"), "json", `"dependsOn"`)), &documented); err != nil {
		t.Fatalf("the docs' plan JSON shape is not JSON: %v", err)
	}
	if len(documented.Resources) != 1 || len(documented.Outputs) != 1 {
		t.Fatal("the docs' plan JSON shape should show one resource and one output")
	}
	var documentedOutput map[string]any
	for _, o := range documented.Outputs {
		documentedOutput = o
	}
	for _, path := range exampleFiles(t) {
		t.Run(filepath.ToSlash(path), func(t *testing.T) {
			_, text := planOf(t, kinds[filepath.Dir(path)], path) // the plan command's: a preview
			var got struct {
				Resources []map[string]any
				Outputs   map[string]map[string]any
			}
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatal(err)
			}
			// A key the docs show with a value must never be null; "value" is documented as
			// null until deployment.
			for _, r := range got.Resources {
				for key, doc := range documented.Resources[0] {
					if v, ok := r[key]; !ok || (v == nil && doc != nil) {
						t.Errorf("%v %v: %s is %v (present %t), the docs show %v", r["type"], r["name"], key, v, ok, doc)
					}
				}
			}
			for name, o := range got.Outputs {
				for key, doc := range documentedOutput {
					if v, ok := o[key]; !ok || (v == nil && doc != nil) {
						t.Errorf("output %s: %s is %v (present %t), the docs show %v", name, key, v, ok, doc)
					}
				}
			}
		})
	}
}

func TestNoExamplesPlanShowsAnOutputKnownOnlyAfterDeploymentAsAnEmptyString(t *testing.T) {
	isolate(t)
	for _, path := range exampleFiles(t) {
		t.Run(filepath.ToSlash(path), func(t *testing.T) {
			_, body, err := kinds[filepath.Dir(path)].load(path)
			if err != nil {
				t.Fatal(err)
			}
			p, err := mockrun.Run(body, mockrun.Options{Preview: true})
			if err != nil {
				t.Fatal(err)
			}
			for name, o := range p.Outputs {
				// An empty string is how a missing cloud-computed value reads once it has passed
				// through a pointer's Elem: the docs promise null until deployment.
				if o.Known && o.Value == "" {
					t.Errorf("output %s reads \"\" in a preview, want it unknown until deployment", name)
				}
			}
		})
	}
}

func TestEveryGoInstallInTheDocsBuildsFromTheCheckout(t *testing.T) {
	docs := []string{filepath.Join(root, "README.md"), filepath.Join(root, "bench", "README.md"),
		filepath.Join(root, "e2e", "README.md"), filepath.Join(root, "deploy", "pko", "README.md")}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, pages...)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "README.md" {
			docs = append(docs, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	installs := 0
	for _, doc := range docs {
		for _, block := range codeBlocks(readFile(t, doc), "sh") {
			for _, m := range regexp.MustCompile(`go (?:install|build -o \S+) (\S+)`).FindAllStringSubmatch(block, -1) {
				installs++
				pkg := strings.TrimRight(m[1], ")")
				t.Run(filepath.ToSlash(doc)+": "+pkg, func(t *testing.T) {
					// The module is not published, so `@version` and import paths fail for a reader;
					// a path inside the clone builds.
					if !strings.HasPrefix(pkg, "./") || strings.Contains(pkg, "@") {
						t.Fatalf("go install %s: the module is not published; install from the clone (./cmd/...)", pkg)
					}
					dir := filepath.Join(root, strings.TrimSuffix(strings.TrimSuffix(pkg, "..."), "/"))
					if info, err := os.Stat(dir); err != nil || !info.IsDir() {
						t.Errorf("go install %s: no such package in the repository", pkg)
					}
				})
			}
		}
	}
	if installs == 0 {
		t.Fatal("no go install or go build -o found in the docs; the test reads the wrong files")
	}
}

func TestTheSDKPageNamesEveryPluginThePulumiYAMLExampleNeeds(t *testing.T) {
	program := readFile(t, filepath.Join("pulumi-yaml", "Pulumi.yaml"))
	// The packages whose plugins the program loads: those of the types it names, and those of
	// the cloud resources its components create.
	need := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+type: (\S+:\S+)`).FindAllStringSubmatch(program, -1) {
		parts := strings.Split(m[1], ":")
		switch {
		case parts[0] == "pulumi" && parts[1] == "providers":
			need[parts[2]] = true
		case parts[0] == "clusterplane":
			need["clusterplane"] = true
			k, ok := kinds[strings.ToLower(parts[1]+parts[2])]
			if !ok {
				t.Fatalf("no kind for the component %s", m[1])
			}
			need[strings.SplitN(k.cloudType, ":", 2)[0]] = true
		default:
			need[parts[0]] = true
		}
	}
	var says string
	for _, s := range sentences(doc(t, "sdks.md")) {
		if strings.HasPrefix(s, "Pulumi YAML needs") {
			says = strings.ToLower(strings.ReplaceAll(s, " ", ""))
		}
	}
	if says == "" {
		t.Fatal(`docs/sdks.md has no sentence "Pulumi YAML needs ..."`)
	}
	for pkg := range need {
		if !strings.Contains(says, pkg) {
			t.Errorf("docs/sdks.md's sentence on what Pulumi YAML needs does not name the %s plugin", pkg)
		}
	}
	if !strings.Contains(says, "providerplugin") {
		t.Errorf("docs/sdks.md's sentence on what Pulumi YAML needs does not name the cloud's provider plugin")
	}
}

func TestEverySentenceOnRenewingTheKubeconfigSaysPulumiUpRefresh(t *testing.T) {
	var files []string
	for _, dir := range []string{".", filepath.Join(root, "apis"), filepath.Join(root, "iac"), filepath.Join(root, "docs")} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch filepath.Ext(path) {
			case ".yaml", ".md", ".proto", ".ts":
				files = append(files, path)
			case ".go":
				if !strings.HasSuffix(path, "_test.go") && !strings.HasSuffix(path, ".pb.go") {
					files = append(files, path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files = append(files, filepath.Join(root, "README.md"))
	checked := 0
	for _, path := range files {
		if filepath.Base(path) == "promises.md" {
			// The promise ledger quotes the docs' sentences, cut short with "…": its rows are no
			// sentences, and each one it quotes is checked where the docs say it.
			continue
		}
		for _, s := range sentences(prose(path, readFile(t, path))) {
			if !strings.Contains(strings.ToLower(s), "kubeconfig") || !strings.Contains(s, "refresh") {
				continue
			}
			checked++
			// `pulumi refresh` alone does not rewrite stack outputs, and the provider fetches new
			// credentials only once the old ones have expired: `pulumi up --refresh` does both.
			if !strings.Contains(s, "pulumi up --refresh") {
				t.Errorf("%s: %q: the kubeconfig is renewed by `pulumi up --refresh`", path, s)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no sentence on renewing the kubeconfig found; the test reads the wrong files")
	}
}

// versionComment is the comment right above the kubernetesVersion line of a manifest.
func versionComment(text string) string {
	comment, _ := commentAbove(text, "kubernetesVersion:", "#")
	return comment
}

// commentAbove is the comment (lines starting with marker) right above the first line that starts
// with prefix, and whether there is such a line.
func commentAbove(text, prefix, marker string) (string, bool) {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), prefix) {
			var comment []string
			for j := i - 1; j >= 0 && strings.HasPrefix(strings.TrimSpace(lines[j]), marker); j-- {
				comment = append([]string{lines[j]}, comment...)
			}
			return strings.Join(comment, "\n"), true
		}
	}
	return "", false
}

func TestEveryVersionADigitalOceanExampleMentionsIsAcceptedAsItsCommentSays(t *testing.T) {
	isolate(t)
	checked := 0
	for _, path := range exampleFiles(t) {
		if filepath.Dir(path) != "digitaloceankubernetescluster" {
			continue
		}
		var clauses []string
		for _, s := range sentences(versionComment(readFile(t, path))) {
			clauses = append(clauses, strings.Split(s, ";")...)
		}
		for _, clause := range clauses {
			for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(clause, -1) {
				version := m[1]
				// What the clause says for a manifest without and with autoUpgrade.
				var want [2]bool
				switch {
				case strings.Contains(clause, "needs autoUpgrade"):
					want = [2]bool{false, true}
				case strings.Contains(clause, "rejected"):
					want = [2]bool{false, false}
				default:
					continue
				}
				for i, autoUpgrade := range []bool{false, true} {
					checked++
					var input docluster.DigitalOceanKubernetesClusterStackInput
					if err := stackinput.LoadFile(path, &input); err != nil {
						t.Fatal(err)
					}
					spec := input.GetTarget().GetSpec()
					spec.KubernetesVersion = version
					spec.AutoUpgrade = autoUpgrade
					accepted := validation.Validate(proto.Message(&input)) == nil
					if accepted != want[i] {
						t.Errorf("%s: %q says of %q with autoUpgrade=%t that it is accepted=%t; validation says %t",
							path, clause, version, autoUpgrade, want[i], accepted)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no version claim found in the DigitalOcean cluster examples; the test reads the wrong comments")
	}
}

func TestWhatTheDocsSayOfAutoUpgradeIsWhatDiffDoes(t *testing.T) {
	// The comments of auto_upgrade, in the proto and the example that turns it on, must say both
	// halves: patch versions of the running minor line are left to DigitalOcean, and a higher
	// minor line still upgrades. "Stops managing kubernetes_version" said only the first.
	comments := map[string]string{
		"spec.proto auto_upgrade": protoFieldComment(t, filepath.Join(root, "apis", "clusterplane", "provider", "digitalocean",
			"digitaloceankubernetescluster", "v1", "spec.proto"), "bool auto_upgrade"),
		"production.yaml": readFile(t, filepath.Join("digitaloceankubernetescluster", "production.yaml")),
	}
	for _, c := range []struct {
		from, to string
		effect   string
		says     string
	}{
		{"1.31.1-do.5", "1.31.2-do.0", "ignored", "patch version"},
		{"1.31", "1.32", "update", "higher minor line"},
	} {
		var oldInput, newInput docluster.DigitalOceanKubernetesClusterStackInput
		for _, in := range []struct {
			input   *docluster.DigitalOceanKubernetesClusterStackInput
			version string
		}{{&oldInput, c.from}, {&newInput, c.to}} {
			if err := stackinput.LoadFile(filepath.Join("digitaloceankubernetescluster", "minimal.yaml"), in.input); err != nil {
				t.Fatal(err)
			}
			in.input.GetTarget().GetSpec().KubernetesVersion = in.version
			in.input.GetTarget().GetSpec().AutoUpgrade = true
		}
		got, err := diff.Compare(registry.Kinds().Table("DigitalOceanKubernetesCluster"), &oldInput, &newInput)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Changes) != 1 || string(got.Changes[0].Effect) != c.effect {
			t.Fatalf("with autoUpgrade, %s to %s: diff = %+v, want one change, %s", c.from, c.to, got.Changes, c.effect)
		}
		for where, comment := range comments {
			if !strings.Contains(strings.Join(strings.Fields(strings.NewReplacer("//", " ", "#", " ").Replace(comment)), " "), c.says) {
				t.Errorf("%s: with autoUpgrade a change from %s to %s is %s, but the comment does not say what happens to a %s",
					where, c.from, c.to, c.effect, c.says)
			}
		}
	}
}

// protoFieldComment returns the comment lines right above the line of a proto file starting with
// field.
func protoFieldComment(t *testing.T, path, field string) string {
	t.Helper()
	comment, ok := commentAbove(readFile(t, path), field, "//")
	if !ok {
		t.Fatalf("%s has no field %q", path, field)
	}
	return comment
}
