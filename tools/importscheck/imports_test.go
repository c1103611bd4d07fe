package importscheck

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/clusterplane/clusterplane/"

// imports are the non-test imports of every package under pkg/ that lie in this module, by the
// importing package, both as paths from the repository's root ("pkg/change/cost").
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]string{}
	err := filepath.WalkDir(filepath.Join(root, "pkg"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"pkg/") {
				out[rel] = append(out[rel], strings.TrimPrefix(imp, module))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// role is the role folder of a package under pkg/: "pkg/change" for pkg/change/cost.
func role(pkg string) string {
	parts := strings.SplitN(pkg, "/", 3)
	return parts[0] + "/" + parts[1]
}

// Two role folders that import each other are one room with two doors: neither can be read,
// changed or tested without the other. Each pair of them imports at most one way.
func TestNoTwoRoleFoldersImportEachOther(t *testing.T) {
	edges := map[[2]string][]string{}
	for from, imps := range imports(t) {
		for _, imp := range imps {
			if a, b := role(from), role(imp); a != b {
				edges[[2]string{a, b}] = append(edges[[2]string{a, b}], from+" → "+imp)
			}
		}
	}
	var both []string
	for e, by := range edges {
		if back, ok := edges[[2]string{e[1], e[0]}]; ok && e[0] < e[1] {
			sort.Strings(by)
			sort.Strings(back)
			both = append(both, e[0]+" and "+e[1]+" import each other:\n\t"+strings.Join(by, "\n\t")+"\n\t"+
				strings.Join(back, "\n\t"))
		}
	}
	sort.Strings(both)
	for _, b := range both {
		t.Error(b)
	}
}

// pkg/change computes what a change costs and does from values; the clouds' APIs are called by
// pkg/cloud, whose drivers hand catalogues and prices in. A package under pkg/change that imports
// one under pkg/cloud calls the network from a computation.
func TestNothingInPkgChangeImportsPkgCloud(t *testing.T) {
	found := map[string]bool{}
	for from, imps := range imports(t) {
		if role(from) != "pkg/change" {
			continue
		}
		for _, imp := range imps {
			if role(imp) == "pkg/cloud" {
				found[from+" → "+imp] = true
			}
		}
	}
	var all []string
	for e := range found {
		all = append(all, e)
	}
	sort.Strings(all)
	for _, e := range all {
		t.Errorf("%s: pkg/change imports pkg/cloud (take the cloud's answer as a value, from its driver)", e)
	}
}
