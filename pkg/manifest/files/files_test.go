package files_test

import (
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
		{name: "other YAML named explicitly is an error naming the nearest kinds", text: "apiVersion: v1\nkind: ConfigMap\n", explicit: true,
			says: `unknown kind "ConfigMap"; want one of CivoKubernetesCluster, DigitalOceanKubernetesCluster`},
		{name: "a misspelt kind gets the nearest one", text: strings.Replace(doCluster, "DigitalOceanKubernetesCluster", "DigitalOceanKubernetesClustr", 1),
			says: "did you mean DigitalOceanKubernetesCluster?"},
		{name: "a kind of the other cloud under this cloud's apiVersion is named the mistake", text: strings.Replace(doCluster, "DigitalOceanKubernetesCluster", "CivoKubernetesCluster", 1),
			says: "kind: CivoKubernetesCluster is not a kind of"},
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
