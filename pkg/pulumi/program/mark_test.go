package program_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
)

type noResources struct{}

func (noResources) NewResource(a pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	return a.Name + "-id", a.Inputs, nil
}

func (noResources) Call(a pulumi.MockCallArgs) (resource.PropertyMap, error) { return a.Args, nil }

// markOf runs a program of stack digitaloceankubernetescluster/dev in project folder dir and says
// the mark program.Mark gives it.
func markOf(t *testing.T, dir string, env map[string]string) stackmark.Mark {
	t.Helper()
	var got stackmark.Mark
	err := pulumi.RunErr(func(ctx *pulumi.Context) error {
		got = program.Mark(ctx, func(k string) string { return env[k] })
		return nil
	}, pulumi.WithMocks("digitaloceankubernetescluster", "dev", noResources{}), func(info *pulumi.RunInfo) {
		info.RootDirectory = dir
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Promise: program-sets-clusterplanes-mark
func TestAProgramRunByPulumiMarksItsStackAsClusterplaneDoesInTheBackendTheCLIChose(t *testing.T) {
	state := t.TempDir()
	link := filepath.Join(t.TempDir(), "state-link")
	if err := os.Symlink(state, link); err != nil {
		t.Fatal(err)
	}
	const key = "digitaloceankubernetescluster/dev"
	clusterplanes := stackmark.Of(stackmark.BackendID("file://"+state), key)
	withBackend := t.TempDir()
	if err := os.WriteFile(filepath.Join(withBackend, "Pulumi.yaml"),
		[]byte("name: digitaloceankubernetescluster\nruntime: go\nbackend:\n  url: postgres://db.example/pulumi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	loggedIn := t.TempDir()
	if err := os.WriteFile(filepath.Join(loggedIn, "credentials.json"), []byte(`{"current": "file://`+link+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		dir         string
		credentials string
		env         map[string]string
		want        stackmark.Mark
	}{
		{name: "PULUMI_BACKEND_URL names the backend, a link to the folder giving clusterplane's mark",
			env: map[string]string{"PULUMI_BACKEND_URL": "file://" + link}, credentials: loggedIn, dir: withBackend, want: clusterplanes},
		{name: "the project file names it when the variable does not",
			dir: withBackend, credentials: loggedIn, want: stackmark.Of("postgres://db.example/pulumi", key)},
		{name: "the stored login names it when neither does",
			dir: t.TempDir(), credentials: loggedIn, want: clusterplanes},
		{name: "no backend found gives no mark",
			dir: t.TempDir(), credentials: t.TempDir()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PULUMI_CREDENTIALS_PATH", tt.credentials)
			if got := markOf(t, tt.dir, tt.env); got != tt.want {
				t.Errorf("mark = %+v, want %+v", got, tt.want)
			}
		})
	}
}
