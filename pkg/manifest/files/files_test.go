package files_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/manifest/files"
)

var kinds = []string{"CivoKubernetesCluster", "DigitalOceanKubernetesCluster"}

const (
	doCluster   = "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\nmetadata:\n  name: a\n"
	civoCluster = "apiVersion: civo.clusterplane.dev/v1\nkind: CivoKubernetesCluster\nmetadata:\n  name: b\n"
)

func TestTheReaderNamesEachManifestsKindOrSaysWhyNot(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		explicit bool
		kinds    []string
		want     []string // the kind of each document
		skipped  bool
		says     string
	}{
		{name: "a manifest is named with its kind", text: doCluster, want: []string{"DigitalOceanKubernetesCluster"}},
		{name: "each document of a file is named", text: doCluster + "---\n" + civoCluster,
			want: []string{"DigitalOceanKubernetesCluster", "CivoKubernetesCluster"}},
		{name: "other YAML found in a folder is skipped", text: "apiVersion: v1\nkind: ConfigMap\n", skipped: true},
		{name: "the Karpenter provider's NodeClass and NodePool found in a folder are skipped",
			text: "apiVersion: karpenter.clusterplane.dev/v1\nkind: CivoNodeClass\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\n", skipped: true},
		{name: "a misspelt cloud's group is still a manifest of clusterplane's", text: strings.Replace(doCluster, "digitalocean.clusterplane.dev", "digitalocen.clusterplane.dev", 1),
			says: "kind:"},
		{name: "other YAML named explicitly is an error naming the nearest kinds", text: "apiVersion: v1\nkind: ConfigMap\n", explicit: true,
			says: `unknown kind "ConfigMap"; want one of CivoKubernetesCluster, DigitalOceanKubernetesCluster`},
		{name: "a misspelt kind gets the nearest one", text: strings.Replace(doCluster, "DigitalOceanKubernetesCluster", "DigitalOceanKubernetesClustr", 1),
			says: "did you mean DigitalOceanKubernetesCluster?"},
		{name: "a kind of the other cloud under this cloud's apiVersion names both ways out, each with its cloud",
			text: strings.Replace(doCluster, "DigitalOceanKubernetesCluster", "CivoKubernetesCluster", 1),
			says: `kind: CivoKubernetesCluster is not a kind of "digitalocean.clusterplane.dev/v1": set apiVersion: ` +
				`civo.clusterplane.dev/v1 if the manifest is for Civo, or kind: DigitalOceanKubernetesCluster if it is for DigitalOcean`},
		{name: "this cloud's kind under the other cloud's apiVersion names the apiVersion that fits it first",
			text: strings.Replace(doCluster, "digitalocean.clusterplane.dev/v1", "civo.clusterplane.dev/v1", 1),
			says: `kind: DigitalOceanKubernetesCluster is not a kind of "civo.clusterplane.dev/v1": set apiVersion: ` +
				`digitalocean.clusterplane.dev/v1 if the manifest is for DigitalOcean, or kind: CivoKubernetesCluster if it is for Civo`},
		{name: "an empty file is an error", text: "# nothing\n", says: "holds no manifest"},
		{name: "a program binary reads a file it is given as its own kind", text: "kind: Other\n", explicit: true,
			kinds: []string{"CivoKubernetesCluster"}, want: []string{"CivoKubernetesCluster"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.yaml")
			if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			r := files.Reader{Kinds: kinds}
			if tt.kinds != nil {
				r.Kinds = tt.kinds
			}
			docs, skipped, err := r.ReadAll(files.Input{File: path, Explicit: tt.explicit})
			if tt.says != "" {
				if err == nil || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), path) {
					t.Fatalf("want an error naming %s and saying %q, got %v", path, tt.says, err)
				}
				return
			}
			if err != nil || skipped != tt.skipped {
				t.Fatalf("skipped %v, err %v; want skipped %v", skipped, err, tt.skipped)
			}
			var got []string
			for _, d := range docs {
				got = append(got, d.Kind)
				if d.File != path || !strings.Contains(string(d.Data), tt.text[:10]) {
					t.Errorf("document of %s holding %q, want the file's name and its text", d.File, d.Data)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("kinds %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOneRefusesAFileOfSeveralManifests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.yaml")
	if err := os.WriteFile(path, []byte(doCluster+"---\n"+doCluster), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := files.Reader{Kinds: kinds}.One(files.Input{File: path, Explicit: true})
	if err == nil || !strings.Contains(err.Error(), path+": holds 2 manifests") {
		t.Fatalf("want an error saying %s holds 2 manifests, got %v", path, err)
	}
}

// writeFleet writes n small manifests under dir: all in dir itself (perFolder 0), or perFolder
// to a subfolder. Each is a hard link to one file, which is 30 times faster to make than a file
// of its own; a file of its own where links cannot be made.
func writeFleet(t *testing.T, dir string, n, perFolder int) {
	t.Helper()
	one := filepath.Join(t.TempDir(), "one.yaml")
	if err := os.WriteFile(one, []byte(doCluster), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		folder := dir
		if perFolder > 0 {
			folder = filepath.Join(dir, fmt.Sprintf("group-%03d", i/perFolder))
			if i%perFolder == 0 {
				if err := os.Mkdir(folder, 0o700); err != nil {
					t.Fatal(err)
				}
			}
		}
		path := filepath.Join(folder, fmt.Sprintf("fleet-%05d.yaml", i))
		if os.Link(one, path) != nil {
			if err := os.WriteFile(path, []byte(doCluster), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestAFleetOfTenThousandManifestsIsWalkedInOneFolderOrInNestedOnes(t *testing.T) {
	const n = 10000
	for _, tt := range []struct {
		name      string
		perFolder int
	}{{"in one folder", 0}, {"in 100 nested folders", 100}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(files.MaxFilesEnv, "")
			dir := t.TempDir()
			writeFleet(t, dir, n, tt.perFolder)
			inputs, err := files.Expand([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			if len(inputs) != n {
				t.Fatalf("%d files, want %d", len(inputs), n)
			}
		})
	}
}

func TestTheWalksBoundCountsWhatIsUnderTheFolderAndSaysHowToRaiseIt(t *testing.T) {
	dir := t.TempDir()
	writeFleet(t, dir, 20, 10) // 20 files in 2 folders: 22 entries under dir
	for _, tt := range []struct {
		env  string
		want string // the error; "" for none
	}{
		{"22", ""},
		{"21", dir + ": more than 21 files and folders under it, the bound of a walk: name the folder of your manifests, or raise the bound with CLUSTERPLANE_MAX_FILES"},
		{"many", `CLUSTERPLANE_MAX_FILES="many": want a whole number`},
		{"0", `CLUSTERPLANE_MAX_FILES="0": want a whole number`},
	} {
		t.Run(tt.env, func(t *testing.T) {
			t.Setenv(files.MaxFilesEnv, tt.env)
			inputs, err := files.Expand([]string{dir})
			if tt.want == "" {
				if err != nil || len(inputs) != 20 {
					t.Fatalf("%d files, err %v; want 20 files", len(inputs), err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}
