//go:build unix

package autostack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blang/semver"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// fakeCLI is a "CLI": a script that writes each command it is given to a log (its first word, and
// the second after "stack"), answers the Automation API's reads empty and knows no stack. commands
// reads the log and empties it.
func fakeCLI(t *testing.T) (c *cli, commands func() []string) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "commands")
	script := "#!/bin/sh\ncase \"$1\" in stack) echo \"stack_$2\";; *) echo \"$1\";; esac >> " + log + "\n" +
		"case \"$1 $2\" in\n'stack output') echo '{}';;\n'stack history') echo '[]';;\n" +
		"'stack select') echo 'error: no stack named s found' >&2; exit 255;;\nesac\n"
	path := filepath.Join(dir, "pulumi")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	commands = func() []string {
		data, _ := os.ReadFile(log)
		_ = os.Remove(log)
		return strings.Fields(string(data))
	}
	// Up to 3.205 the API tails the CLI's events from a file, which a script need not write: a
	// later CLI's events come over a connection the API waits for.
	return &cli{path: path, version: semver.MustParse("3.200.0")}, commands
}

// fakeStack is stack "s" of project "p" on a fakeCLI.
func fakeStack(t *testing.T) (*stackOf, func() []string) {
	t.Helper()
	c, commands := fakeCLI(t)
	ctx := context.Background()
	program := func(*pulumi.Context) error { return nil }
	p := workspace.Project{Name: tokens.PackageName("p"), Runtime: workspace.NewProjectRuntimeInfo("go", nil)}
	ws, err := auto.NewLocalWorkspace(ctx, auto.WorkDir(t.TempDir()), auto.Project(p), auto.Pulumi(c), auto.Program(program))
	if err != nil {
		t.Fatal(err)
	}
	st, err := auto.SelectStack(ctx, "s", preselected{ws})
	if err != nil {
		t.Fatal(err)
	}
	return &stackOf{stack: "s", program: program, auto: st}, commands
}

func TestAnUpARefreshAndADestroyStartTheCLIOnceEachWhileAReadOfOutputsStillRunsIt(t *testing.T) {
	s, commands := fakeStack(t)
	ctx := context.Background()
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{name: "an up runs up alone", want: "up",
			run: func() error { _, err := s.Up(ctx, stackstate.Options{}); return err }},
		{name: "a refresh runs refresh alone", want: "refresh",
			run: func() error { _, err := s.Refresh(ctx, stackstate.Options{}); return err }},
		{name: "a destroy runs destroy alone", want: "destroy",
			run: func() error { _, err := s.Destroy(ctx, stackstate.Options{}); return err }},
		{name: "reading the outputs still asks the CLI, twice", want: "stack_output stack_output",
			run: func() error { _, err := s.Outputs(ctx); return err }},
		{name: "reading the last update still asks the CLI", want: "stack_history",
			run: func() error { _, err := s.LastUpdate(ctx); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(commands(), " "); got != tt.want {
				t.Errorf("the CLI ran %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAStackAFileBackendSurelyLacksIsNotDeployedWithoutAskingTheCLI(t *testing.T) {
	tests := []struct {
		name string
		// files are the backend's, by path, before the stack is opened.
		files map[string]string
		want  string
	}{
		{name: "a project-scoped backend without the stack answers itself",
			files: map[string]string{".pulumi/meta.yaml": "version: 1\n", ".pulumi/stacks/p/other.json": "{}"}},
		{name: "a stack kept there is opened without a select",
			files: map[string]string{".pulumi/meta.yaml": "version: 1\n", ".pulumi/stacks/p/s.json": "{}"}},
		{name: "a backend of no known layout is left to the CLI", want: "stack_select",
			files: map[string]string{".pulumi/stacks/other.json": "{}"}},
		{name: "a record in a form not read here is left to the CLI", want: "stack_select",
			files: map[string]string{".pulumi/meta.yaml": "version: 1\n", ".pulumi/stacks/p/s.json.lz4": "{}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range tt.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, commands := fakeCLI(t)
			b := &Backend{url: "file://" + root, cli: c}
			s, err := b.Open(context.Background(), "p", "s", func(*pulumi.Context) error { return nil })
			if err == nil {
				_ = s.Close()
			}
			if _, kept := tt.files[".pulumi/stacks/p/s.json"]; kept != (err == nil) || !kept && !errors.Is(err, stackstate.ErrNotDeployed) {
				t.Errorf("Open = %v, want the stack opened only when its record is there, else not deployed", err)
			}
			if got := strings.Join(commands(), " "); got != tt.want {
				t.Errorf("the CLI ran %q, want %q", got, tt.want)
			}
		})
	}
}

// An up reads its stack's state before the engine runs and again after, and its last update:
// each a `pulumi stack export` or `stack history`, a process of about a second. A file backend's
// stack whose records are read here is read without the CLI, as the CLI would give it; where the
// CLI might say otherwise (a checkpoint with features, of another version, cut short, or a stack
// with no deployment yet), it is asked.
func TestAStacksStateAndLastUpdateAreReadWithoutTheCLIWhereTheBackendsFilesAreReadHere(t *testing.T) {
	withFeatures := strings.Replace(checkpoint, `{"version":3,`, `{"version":3,"features":["x"],`, 1)
	tests := []struct {
		name, state string
		// export is what the CLI is asked for the state: "" when it is read here.
		export string
	}{
		{"a checkpoint of version 3 is read here", checkpoint, ""},
		{"a checkpoint with features is the CLI's to export", withFeatures, "stack_export"},
		{"a checkpoint of another version is the CLI's to export", strings.Replace(checkpoint, `"version":3`, `"version":4`, 1), "stack_export"},
		{"a checkpoint cut short is the CLI's to export", checkpoint[:40], "stack_export"},
		{"a stack with no deployment yet is the CLI's to export", `{"version":3,"checkpoint":{"stack":"organization/p/s"}}`, "stack_export"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range map[string]string{".pulumi/meta.yaml": meta, ".pulumi/stacks/p/s.json": tt.state,
				".pulumi/history/p/s/s-1764064800000000000.history.json": updated} {
				writeBlob(t, filepath.Join(root, filepath.FromSlash(name)), text)
			}
			s, commands := fakeStack(t)
			s.backend, s.project = &Backend{url: "file://" + root}, "p"
			ctx := context.Background()
			st, err := s.State(ctx)
			if got := strings.Join(commands(), " "); got != tt.export {
				t.Errorf("reading the state, the CLI ran %q, want %q", got, tt.export)
			}
			if tt.export == "" {
				if err != nil || len(st.Deployment.Resources) != 1 || stackstate.StringOutput(st.Outputs(), "clusterplane_generation") != "abc" {
					t.Errorf("the state read here: %+v, %v; want the checkpoint's one resource and its output", st.Deployment, err)
				}
			}
			last, err := s.LastUpdate(ctx)
			if got := strings.Join(commands(), " "); got != "" || err != nil || last == nil || last.Result != "succeeded" {
				t.Errorf("reading the last update: %+v, %v, and the CLI ran %q; want the history's update and no CLI", last, err, got)
			}
		})
	}
}
