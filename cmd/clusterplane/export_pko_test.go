package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// byKind are an export's objects by kind, in order.
func byKind(t *testing.T, stream string) map[string][]map[string]any {
	t.Helper()
	out := map[string][]map[string]any{}
	for _, o := range objects(t, stream) {
		out[o["kind"].(string)] = append(out[o["kind"].(string)], o)
	}
	return out
}

func dig(o any, path ...string) any {
	for _, p := range path {
		m, ok := o.(map[string]any)
		if !ok {
			return nil
		}
		o = m[p]
	}
	return o
}

func TestTheExportCreatesTheServiceAccountBindsItToAuthDelegatorAndEveryStackRunsAsIt(t *testing.T) {
	tests := []struct {
		name              string
		args              []string
		account, ns, bind string
	}{
		{"by default", nil, "clusterplane", "default", "clusterplane:default:clusterplane:auth-delegator"},
		{"named", []string{"--service-account", "infra", "-n", "platform"}, "infra", "platform", "clusterplane:platform:infra:auth-delegator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"export", "pko", "--image", testImage, manifestTree(t, "", "digitaloceankubernetescluster")}, tt.args...)
			r := run(t, "", args...)
			if r.code != 0 {
				t.Fatal(r.stderr)
			}
			k := byKind(t, r.stdout)
			if len(k["ServiceAccount"]) != 1 || dig(k["ServiceAccount"][0], "metadata", "name") != tt.account ||
				dig(k["ServiceAccount"][0], "metadata", "namespace") != tt.ns {
				t.Fatalf("service accounts %v, want %s/%s", k["ServiceAccount"], tt.ns, tt.account)
			}
			if len(k["ClusterRoleBinding"]) != 1 {
				t.Fatalf("bindings %v, want one", k["ClusterRoleBinding"])
			}
			b := k["ClusterRoleBinding"][0]
			subject := dig(b, "subjects").([]any)[0]
			if dig(b, "metadata", "name") != tt.bind || dig(b, "roleRef", "name") != "system:auth-delegator" ||
				dig(b, "roleRef", "kind") != "ClusterRole" || dig(subject, "name") != tt.account || dig(subject, "namespace") != tt.ns {
				t.Errorf("binding %v, want %s/%s bound to system:auth-delegator", b, tt.ns, tt.account)
			}
			if len(k["Stack"]) < 2 {
				t.Fatalf("%d Stacks", len(k["Stack"]))
			}
			for _, s := range k["Stack"] {
				if dig(s, "spec", "serviceAccountName") != tt.account || dig(s, "metadata", "namespace") != tt.ns {
					t.Errorf("Stack %v runs as %v in %v, want %s in %s", dig(s, "metadata", "name"),
						dig(s, "spec", "serviceAccountName"), dig(s, "metadata", "namespace"), tt.account, tt.ns)
				}
			}
		})
	}
}

func TestADevelopmentBuildWithoutAnImageIsRefusedAndAReleaseNamesItsOwnTag(t *testing.T) {
	file := filepath.Join(examples, "digitaloceankubernetescluster", "minimal.yaml")
	tests := []struct {
		version, image string
	}{
		{"0.0.0", ""},
		{"0.3.1-0.20261123151200-0123456789ab", ""}, // go build from a checkout past a tag
		{"0.3.0+dirty", ""},
		{"0.3.0", "ghcr.io/clusterplane/workspace:v0.3.0"}, // the tag deploy/pko/Dockerfile documents
		{"0.4.0-rc.1", "ghcr.io/clusterplane/workspace:v0.4.0-rc.1"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			old := releaseVersion
			releaseVersion = func() string { return tt.version }
			defer func() { releaseVersion = old }()
			r := run(t, "", "export", "pko", file)
			if tt.image == "" {
				if r.code != exitcode.Invalid || !strings.Contains(r.stderr, "--image is required: this clusterplane is a development build (version "+tt.version+")") {
					t.Errorf("export without --image = %d: %s", r.code, r.stderr)
				}
				if r := run(t, "", "export", "pko", "--image", testImage, file); r.code != 0 || !strings.Contains(r.stdout, "image: "+testImage) {
					t.Errorf("export with --image = %d: %s", r.code, r.stderr)
				}
				return
			}
			if r.code != 0 || !strings.Contains(r.stdout, "image: "+tt.image+"\n") {
				t.Errorf("export = %d, want image %s:\n%s%s", r.code, tt.image, r.stdout, r.stderr)
			}
		})
	}
}

func TestTheSameTreeExportedFromTwoCheckoutsGivesTheSameBytes(t *testing.T) {
	for _, git := range []bool{false, true} {
		name := map[bool]string{false: "relative to the folder given", true: "relative to the repository root"}[git]
		t.Run(name, func(t *testing.T) {
			var outs [2]string
			for i, parent := range []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "some", "other", "clone")} {
				tree := manifestTree(t, parent)
				if git {
					if err := os.MkdirAll(filepath.Join(parent, ".git"), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				dir := t.TempDir()
				r := run(t, "", "export", "pko", "--image", testImage, tree, "--drift-check", "--drift-schedule", "@daily", "-d", dir)
				if r.code != 0 {
					t.Fatal(r.stderr)
				}
				files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
				var all bytes.Buffer
				for _, f := range files {
					data, _ := os.ReadFile(f)
					all.WriteString(filepath.Base(f) + "\n")
					all.Write(data)
				}
				if strings.Contains(all.String(), parent) {
					t.Errorf("the export names the checkout's folder %s", parent)
				}
				outs[i] = all.String()
			}
			if outs[0] != outs[1] || outs[0] == "" {
				t.Errorf("two checkouts' exports differ:\n%s\n---\n%s", outs[0], outs[1])
			}
			want := "clusterplane.dev/manifest: digitaloceankubernetescluster/minimal.yaml\n"
			if git {
				want = "clusterplane.dev/manifest: examples/digitaloceankubernetescluster/minimal.yaml\n"
			}
			if !strings.Contains(outs[0], want) {
				t.Errorf("no %q in the export", want)
			}
		})
	}
}

// otherForm is examples' minimal DigitalOcean cluster in its stack-input form with another node
// count: another manifest of the same stack.
func otherForm(t *testing.T) string {
	t.Helper()
	text := strings.Replace(readExample(t, "digitaloceankubernetescluster/minimal.stack-input.yaml"), "nodeCount: 2", "nodeCount: 3", 1)
	path := filepath.Join(t.TempDir(), "minimal.stack-input.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTheExamplesFolderExportsAsAWholeEachStackOnce(t *testing.T) {
	r := run(t, "", "export", "pko", "--image", testImage, examples)
	if r.code != 0 {
		t.Fatalf("export pko examples/ = %d:\n%s", r.code, r.stderr)
	}
	manifests, _ := filepath.Glob(filepath.Join(examples, "*kubernetes*", "*.yaml"))
	bare := 0
	for _, m := range manifests {
		if !strings.HasSuffix(m, ".stack-input.yaml") {
			bare++
		}
	}
	if stacks := len(byKind(t, r.stdout)["Stack"]); stacks != bare || bare == 0 {
		t.Errorf("%d Stacks for the %d manifests of examples/ (each also in its stack-input form)", stacks, bare)
	}
}

// Promise: pko-export-refuses-what-preview-refuses
func TestTheExportRefusesWhatPreviewRefusesNamingTheFiles(t *testing.T) {
	do := filepath.Join(examples, "digitaloceankubernetescluster")
	pools := filepath.Join(examples, "digitaloceankubernetesnodepool")
	tests := []struct {
		name  string
		files []string
		says  []string
	}{
		{"a manifest and a stack input of another manifest of its stack", []string{filepath.Join(do, "minimal.yaml"), otherForm(t)},
			[]string{"minimal.yaml", "minimal.stack-input.yaml", "both deploy stack digitaloceankubernetescluster/dev-fra1"}},
		{"a reference to a stack no manifest deploys", []string{filepath.Join(pools, "cluster-by-reference.yaml")},
			[]string{"cluster-by-reference.yaml references stack digitaloceankubernetescluster/platform-ams3-prod, which no manifest given deploys: give its manifest too"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := run(t, "", append([]string{"export", "pko", "--image", testImage, "-d", dir}, tt.files...)...)
			if r.code == 0 {
				t.Fatalf("export succeeded:\n%s", r.stdout)
			}
			for _, s := range tt.says {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr does not say %q:\n%s", s, r.stderr)
				}
			}
			if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
				t.Errorf("a refused export wrote %v", files)
			}
		})
	}
}

func TestADriftScheduleAddsACronJobWhoseAccountMayOnlyCreateUpdates(t *testing.T) {
	r := run(t, "", "export", "pko", "--image", testImage, manifestTree(t, "", "civokubernetescluster"), "--drift-schedule", "0 6 * * *")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	k := byKind(t, r.stdout)
	if len(k["CronJob"]) != 1 || len(k["Role"]) != 1 || len(k["RoleBinding"]) != 1 || len(k["ConfigMap"]) != 1 || len(k["ServiceAccount"]) != 2 {
		t.Fatalf("want a CronJob, Role, RoleBinding, ConfigMap and a second ServiceAccount, got %v", k)
	}
	cron := k["CronJob"][0]
	if dig(cron, "spec", "schedule") != "0 6 * * *" || dig(cron, "spec", "jobTemplate", "spec", "template", "spec", "serviceAccountName") != "clusterplane-drift" {
		t.Errorf("CronJob %v", cron)
	}
	rules := dig(k["Role"][0], "rules").([]any)
	if len(rules) != 1 || len(dig(rules[0], "verbs").([]any)) != 1 || dig(rules[0], "verbs").([]any)[0] != "create" ||
		dig(rules[0], "resources").([]any)[0] != "updates" || dig(rules[0], "apiGroups").([]any)[0] != "auto.pulumi.com" {
		t.Errorf("Role rules %v, want only create on auto.pulumi.com updates", rules)
	}
	updates := objects(t, dig(k["ConfigMap"][0], "data", "updates.yaml").(string))
	if len(updates) != len(k["Stack"]) {
		t.Fatalf("%d Updates for %d Stacks", len(updates), len(k["Stack"]))
	}
	for i, u := range updates {
		stack := dig(k["Stack"][i], "metadata", "name").(string)
		if dig(u, "metadata", "generateName") != stack+"-drift-" || dig(u, "metadata", "name") != nil ||
			dig(u, "spec", "workspaceName") != stack || dig(u, "spec", "type") != "preview" || dig(u, "spec", "expectNoChanges") != true {
			t.Errorf("Update %v for Stack %s", u, stack)
		}
	}
	for _, bad := range []string{"every day", "* * *"} {
		if r := run(t, "", "export", "pko", "--image", testImage, manifestTree(t, "", "civokubernetescluster"), "--drift-schedule", bad); r.code == 0 ||
			!strings.Contains(r.stderr, "want a cron schedule of 5 fields") {
			t.Errorf("--drift-schedule %q = %d: %s", bad, r.code, r.stderr)
		}
	}
}
