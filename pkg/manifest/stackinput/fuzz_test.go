package stackinput_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// fuzzToken stands for a real token wherever the fuzzer puts it; no error may ever show it. Like
// real tokens it has digits: a key of letters alone is an identifier, which errors name.
const fuzzToken = "tokSENTINEL901fuzz"

// addSeeds seeds f with every example and with shapes that once leaked a token or slipped past
// the rules.
func addSeeds(f *testing.F) {
	err := filepath.WalkDir(filepath.Join("..", "..", "..", "examples"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil {
			f.Add(data)
			f.Add([]byte(strings.Replace(string(data), "providerConfig: {}", "providerConfig:\n  apiToken: "+fuzzToken, 1)))
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"target: {}\nproviderConfig: " + fuzzToken + "\n",
		"providerConfig: {apiToken " + fuzzToken + "}\n",
		"providerConfig:\n  apiToken: !!int " + fuzzToken + "\n",
		"providerConfig:\n  apiToken: *" + fuzzToken + "\n",
		"providerConfig:\n  apiToken: &" + fuzzToken + " x\n",
		"providerConfig:\n  " + fuzzToken + ": x\n",
		"a: &a [" + strings.Repeat("x,", 20) + "x]\nb: [*a, *a, *a]\n",
		"---\n---\n",
	} {
		f.Add([]byte(s))
	}
}

// FuzzParse holds the loader to its promises on any input: no panic, no token in an error, and
// what it accepts is valid and reads back the same.
// Promise: fuzz-targets-hold-their-promises
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		input := &cluster.DigitalOceanKubernetesClusterStackInput{}
		err := stackinput.Parse(data, "fuzz.yaml", input)
		if err != nil {
			if strings.Contains(err.Error(), fuzzToken) {
				t.Fatalf("the error shows the token: %v", err)
			}
			return
		}
		if err := validation.Validate(input); err != nil {
			t.Fatalf("accepted an invalid input: %v", err)
		}
		again := &cluster.DigitalOceanKubernetesClusterStackInput{}
		if err := stackinput.Parse([]byte(protojson.Format(input)), "again.json", again); err != nil {
			t.Fatalf("what was accepted does not read back: %v", err)
		}
		if !proto.Equal(input, again) {
			t.Fatal("what was accepted reads back different")
		}
	})
}
