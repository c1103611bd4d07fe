package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// annotate records a cloud id in the manifest file's metadata, as discover writes it.
func annotate(t *testing.T, file, id string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "\nmetadata:\n", "\nmetadata:\n  annotations:\n    \""+deploytarget.CloudIDAnnotation+"\": "+id+"\n", 1)
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// liveFleet puts the fleet's cluster and pool into the fake cloud, as an import reads them.
func liveFleet(b *deploytest.Backend) {
	b.Live("cluster-1", map[string]any{"name": "dev-fra1", "region": "fra1", "version": "1.31.1-do.5", "tags": []any{},
		"nodePool": map[string]any{"name": "default", "size": "s-2vcpu-4gb", "actualNodeCount": float64(2)}})
	b.Live("pool-1", map[string]any{"name": "workers", "size": "s-2vcpu-4gb", "nodeCount": float64(2)})
}

func TestAdoptOfAFolderTakesEachIdFromItsManifestAndAdoptsTheClusterBeforeItsPool(t *testing.T) {
	dir := fleet(t)
	annotate(t, filepath.Join(dir, "cluster.yaml"), "cluster-1")
	annotate(t, filepath.Join(dir, "pool.yaml"), "pool-1")
	b := deploytest.New()
	liveFleet(b)
	r := deployRun(t, b, strings.NewReader(""), false, "adopt", filepath.Join(dir, "pool.yaml"), filepath.Join(dir, "cluster.yaml"))
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "adopted "+clusterTypeName+" cluster-1") ||
		!strings.Contains(r.stdout, "adopted digitalocean:index/kubernetesNodePool:KubernetesNodePool pool-1") {
		t.Fatalf("adopt of the fleet = %d, want both adopted\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	calls := b.Calls()
	if i, j := slices.Index(calls, "update digitaloceankubernetescluster/platform-prod"),
		slices.Index(calls, "preview digitaloceankubernetesnodepool/workers"); i < 0 || j < i {
		t.Errorf("the pool was not adopted after its cluster: %v", calls)
	}
	// The tags clusterplane derives are not on the cloud's cluster: listed for the next up.
	if !strings.Contains(r.stdout, "the next `up` changes in place:") || !strings.Contains(r.stdout, "spec.tags") {
		t.Errorf("adopt does not list the in-place differences:\n%s", r.stdout)
	}
	// The fleet's summary counts them as every fleet command's does.
	if !strings.Contains(r.stdout, "\nStacks: 2 adopted. Resources: ") {
		t.Errorf("adopt does not end with the fleet's summary:\n%s", r.stdout)
	}
}

const clusterTypeName = "digitalocean:index/kubernetesCluster:KubernetesCluster"

// Promise: adopt-refuses-without-id-or-held
func TestAdoptRefusesAFleetWithAManifestWithoutAnIdOrAnIdThatContradictsItsManifestBeforeAdoptingAnything(t *testing.T) {
	tests := []struct {
		name  string
		ids   map[string]string
		args  []string
		says  string
		files []string
	}{
		{"a pool without an id", map[string]string{"cluster.yaml": "cluster-1"}, nil,
			"no cloud id for", []string{"pool.yaml"}},
		{"--id against the manifest's annotation", map[string]string{"cluster.yaml": "cluster-1"}, []string{"--id", "cluster-2"},
			"records the cloud id cluster-1", []string{"cluster.yaml"}},
		{"--id for several manifests", map[string]string{"cluster.yaml": "cluster-1", "pool.yaml": "pool-1"}, []string{"--id", "cluster-1"},
			"--id is the cloud id of one manifest, and 2 were given", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fleet(t)
			for file, id := range tt.ids {
				annotate(t, filepath.Join(dir, file), id)
			}
			target := dir
			if len(tt.ids) == 1 && tt.args != nil {
				target = filepath.Join(dir, "cluster.yaml")
			}
			b := deploytest.New()
			liveFleet(b)
			r := deployRun(t, b, strings.NewReader(""), false, append([]string{"adopt", target}, tt.args...)...)
			if r.code != exitcode.Invalid || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("adopt = %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", r.code, exitcode.Invalid, tt.says, r.stdout, r.stderr)
			}
			for _, f := range tt.files {
				if !strings.Contains(r.stderr, f) {
					t.Errorf("the refusal does not name %s: %s", f, r.stderr)
				}
			}
			if len(b.Calls()) != 0 {
				t.Errorf("the engine ran before the refusal: %v", b.Calls())
			}
		})
	}
}

func TestAdoptExactBlocksOnTheTagsTheDefaultAdoptTakesInPlace(t *testing.T) {
	dir := fleet(t)
	file := filepath.Join(dir, "cluster.yaml")
	annotate(t, file, "cluster-1")
	b := deploytest.New()
	liveFleet(b)
	r := deployRun(t, b, strings.NewReader(""), false, "adopt", file, "--exact")
	if r.code != exitcode.Blocked || !strings.Contains(r.stdout, "spec.tags: manifest") || !strings.Contains(r.stdout, "nothing was changed") {
		t.Errorf("adopt --exact = %d, want %d listing spec.tags\nstdout:\n%s\nstderr:\n%s", r.code, exitcode.Blocked, r.stdout, r.stderr)
	}
	if b.Has("digitaloceankubernetescluster/platform-prod") {
		t.Error("a blocked adoption left its stack")
	}
}

func TestAdoptSaysWhatTheNextUpChangesInPlaceInTextJSONAndMarkdown(t *testing.T) {
	tests := []struct {
		output string
		says   []string
	}{
		{"text", []string{"the next `up` changes in place:", "spec.tags: the cloud has [], up sends ["}},
		{"json", []string{`"inPlace": [`, `"field": "spec.tags"`, `"effect": "update"`}},
		{"markdown", []string{"- the next `up` changes `spec.tags` in place: the cloud has `[]`, up sends `["}},
	}
	for _, tt := range tests {
		t.Run(tt.output, func(t *testing.T) {
			file := filepath.Join(fleet(t), "cluster.yaml")
			annotate(t, file, "cluster-1")
			b := deploytest.New()
			liveFleet(b)
			r := deployRun(t, b, strings.NewReader(""), false, "adopt", file, "-o", tt.output)
			for _, want := range tt.says {
				if r.code != exitcode.OK || !strings.Contains(r.stdout, want) {
					t.Errorf("adopt -o %s = %d, want 0 saying %q\nstdout:\n%s\nstderr:\n%s", tt.output, r.code, want, r.stdout, r.stderr)
				}
			}
		})
	}
}
