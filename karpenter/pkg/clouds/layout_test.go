package clouds_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cloudFiles are the module's files that may name a cloud: each cloud's file here and in the
// API. Test files, generated files and the test bed of the loopback clouds (internal/testbed,
// which only tests import) may too; the table (drivers.go) only on its line, tableLine.
var cloudFiles = map[string]bool{
	"pkg/clouds/digitalocean.go":  true,
	"pkg/clouds/civo.go":          true,
	"pkg/apis/v1/digitalocean.go": true,
	"pkg/apis/v1/civo.go":         true,
	"internal/testbed/testbed.go": true,
}

// tableLine is the table's line, which names each cloud's driver.
const tableLine = "var drivers = []Driver{"

// cloudName is a cloud's name in an identifier, a string or an import path.
var cloudName = regexp.MustCompile(`(?i)civo|digitalocean|godo\b`)

// Adding a cloud to the provider is its file and its line in the table: no other code of the
// module names a cloud, so none can take one cloud's path for another's. Comments may name them.
func TestNoCodeOutsideTheCloudsFilesNamesACloud(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if cloudFiles[rel] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), "\n// Code generated ") || strings.HasPrefix(string(src), "// Code generated ") {
			return nil
		}
		lines := strings.Split(string(src), "\n")
		for _, hit := range namesACloud(src) {
			if rel == "pkg/clouds/drivers.go" && strings.HasPrefix(lines[hit.line-1], tableLine) {
				continue
			}
			t.Errorf("%s:%s names a cloud (%s): only a cloud's own file and the table may", rel, hit.pos, hit.text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type hit struct {
	pos, text string
	line      int
}

// namesACloud are the identifiers and literals of src (comments left out) that name a cloud.
func namesACloud(src []byte) []hit {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	var out []hit
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if (tok == token.IDENT || tok == token.STRING) && cloudName.MatchString(lit) {
			p := fset.Position(pos)
			out = append(out, hit{pos: strings.TrimPrefix(p.String(), ":"), text: lit, line: p.Line})
		}
	}
}

func TestTheCloudNameCheckSeesIdentifiersStringsAndImportsButNotComments(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"a kind's name in a string is seen", `package p; var k = "CivoNodeClass"`, 1},
		{"an identifier is seen", `package p; var k = v1.DigitalOceanNodeClass{}`, 1},
		{"an import of a cloud's client is seen", "package p\nimport \"github.com/digitalocean/godo\"", 1},
		{"a comment is not", "package p\n// DigitalOcean and Civo\nvar k = 1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := namesACloud([]byte(tc.src)); len(got) != tc.want {
				t.Errorf("got %v, want %d", got, tc.want)
			}
		})
	}
}
