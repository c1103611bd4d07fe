// Package autostack is the deploy.Backend of Pulumi's Automation API: stacks of inline programs,
// the Pulumi CLI on PATH running the engine, state in the backend PULUMI_BACKEND_URL names (or a
// local file backend under the user's config folder). It is the only package that imports the
// Automation API, and the only one that reads the engine's words: where the engine says a fault
// only in text (a protected resource, a wrong passphrase), classify matches it, tested on recorded
// output.
package autostack

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/blang/semver"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/deploy/backendurl"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/ownedfs"
	"github.com/clusterplane/clusterplane/pkg/pulumi/provider"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// MinimumPulumi is the oldest Pulumi CLI this package is tested with.
var MinimumPulumi = semver.MustParse("3.259.0")

// Environment variables the backend reads, besides Pulumi's own.
const (
	// BackendEnv names the backend (Pulumi's own variable).
	BackendEnv = "PULUMI_BACKEND_URL"
	// PassphraseEnv and PassphraseFileEnv give the passphrase of the passphrase secrets provider
	// (Pulumi's own variables).
	PassphraseEnv     = "PULUMI_CONFIG_PASSPHRASE"
	PassphraseFileEnv = "PULUMI_CONFIG_PASSPHRASE_FILE"
	// SecretsProviderEnv names the secrets provider of new stacks when Options.SecretsProvider
	// does not.
	SecretsProviderEnv = "CLUSTERPLANE_SECRETS_PROVIDER"
)

// Options configure a Backend.
type Options struct {
	// URL is the backend; default PULUMI_BACKEND_URL, else a local file backend under the user's
	// config folder.
	URL string
	// SecretsProvider encrypts the secrets of the stacks the backend creates (a stack keeps its
	// own afterwards): "passphrase", "awskms://...", "gcpkms://...", "azurekeyvault://...",
	// "hashivault://..."; default CLUSTERPLANE_SECRETS_PROVIDER, else "passphrase".
	SecretsProvider string
	// Plugin, when set, is a binary that serves the clusterplane plugin when started under its
	// name (the clusterplane command is one): the engine is made to find it.
	Plugin string
}

// Backend opens stacks through the Automation API.
type Backend struct {
	url, secrets string
	// id names the backend in its stacks' marks, worked out once (ID).
	id  string
	cli *cli

	// pg is a PostgreSQL backend's table, connected on the first read of its records (Records).
	pgOnce sync.Once
	pg     *pgBlobs
	pgErr  error

	// folders keeps a local file backend's listings of the folders of every stack's state.
	folders folders

	// tableMade is set once a PostgreSQL backend's table is known to exist (prepareTable).
	tableMu   sync.Mutex
	tableMade bool

	// parsed are the states the fleet scan parsed for stacks it leaves to run (Records.Keep).
	parsed stackstate.ParsedStates
}

var _ stackstate.Backend = (*Backend)(nil)

// New finds the Pulumi CLI and checks everything a stack needs before any runs: the CLI's version,
// the backend, and for the passphrase secrets provider a passphrase.
func New(opts Options) (*Backend, error) {
	c, err := findCLI()
	if err != nil {
		return nil, err
	}
	if v := c.Version(); v.LT(MinimumPulumi) {
		return nil, errors.Errorf("the Pulumi CLI on PATH is %s; clusterplane needs %s or newer", v, MinimumPulumi)
	}
	b := &Backend{url: opts.URL, secrets: opts.SecretsProvider, cli: c}
	if b.secrets == "" {
		b.secrets = os.Getenv(SecretsProviderEnv)
	}
	if b.secrets == "" {
		b.secrets = "passphrase"
	}
	if err := checkSecretsProvider(b.secrets); err != nil {
		return nil, err
	}
	if b.secrets == "passphrase" && os.Getenv(PassphraseEnv) == "" && os.Getenv(PassphraseFileEnv) == "" {
		return nil, errors.New("set " + PassphraseEnv + " (or " + PassphraseFileEnv + "): the stacks' secrets " +
			"(API tokens, kubeconfigs) are encrypted with it, and every later command needs the same one; or choose " +
			"another secrets provider with --secrets-provider")
	}
	if b.url == "" {
		b.url = os.Getenv(BackendEnv)
	}
	if b.url == "" {
		if b.url, err = LocalBackend(); err != nil {
			return nil, err
		}
	}
	if err := backendurl.Known(b.url); err != nil {
		return nil, errors.Wrapf(err, "%s is %s", BackendEnv, b.redactor().String(b.url))
	}
	if b.url, err = backendurl.Absolute(b.url); err != nil {
		return nil, err
	}
	if err := b.staysInSandbox(); err != nil {
		return nil, err
	}
	if err := checkFileBackend(b.url); err != nil {
		return nil, err
	}
	b.id = stackmark.BackendID(b.url)
	// The workspaces of the clusterplane processes killed before they could remove theirs.
	sweepWorkDirs()
	if opts.Plugin != "" {
		if err := providePlugin(opts.Plugin); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// LocalBackend is the file backend clusterplane keeps state in when PULUMI_BACKEND_URL names
// none: under the user's config folder, no account, no server. Its folders (clusterplane and
// clusterplane/state) must be this user's alone: whoever may write the state chooses what the
// next `up` believes is deployed.
func LocalBackend() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", errors.Wrap(err, "find the folder for the local state (set HOME, or PULUMI_BACKEND_URL)")
	}
	state, err := ownedfs.MkdirAll(dir, "clusterplane", "state")
	if err != nil {
		return "", errors.Wrap(err, "the folder for the local state")
	}
	return "file://" + state, nil
}

// checkFileBackend refuses the folder of a file backend (file://PATH, as PULUMI_BACKEND_URL or
// Options.URL names it) unless it is this user's alone, as LocalBackend's folders must be: whoever
// may write the state chooses what the next `up` believes is deployed and what `destroy` removes,
// with this user's cloud tokens. A folder not there yet is made, 0700, where the CLI would make
// it; a link is followed, and the folder it leads to checked. Other backends are not folders.
func checkFileBackend(url string) error {
	root, err := stackmark.FileRoot(url)
	if err != nil || root == "" {
		return err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return errors.Wrap(err, "create the state's folder")
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return errors.Wrap(err, "find the state's folder")
	}
	return errors.Wrapf(ownedfs.Check(real), "the state's folder (%s)", BackendEnv)
}

// URL is the backend's URL.
func (b *Backend) URL() string { return b.url }

// ID names the backend in its stacks' marks (stackstate.Backend), as New worked it out.
func (b *Backend) ID() string { return b.id }

// RunsProviders is true: the engine runs the clouds' provider plugins (stackstate.Backend).
func (b *Backend) RunsProviders() bool { return true }

// checkSecretsProvider refuses a secrets provider Pulumi does not accept, before any stack is
// made with it.
func checkSecretsProvider(p string) error {
	if p == "passphrase" || p == "default" {
		return nil
	}
	for _, scheme := range []string{"awskms://", "gcpkms://", "azurekeyvault://", "hashivault://"} {
		if strings.HasPrefix(p, scheme) && len(p) > len(scheme) {
			return nil
		}
	}
	return &stackstate.SecretsProviderError{Provider: p, Cause: "Pulumi accepts passphrase, default (Pulumi Cloud), " +
		"awskms://, gcpkms://, azurekeyvault:// and hashivault:// URLs"}
}

// workspace is the inline workspace of stack <project>/<stack>: the program runs in this
// process, no program folder and no `go build`. Its folder (dir) is the stack's to remove (Close).
// Pulumi.yaml names no backend: the URL, a password perhaps among it, reaches the CLI in its
// environment only.
func (b *Backend) workspace(ctx context.Context, project string, program pulumi.RunFunc) (ws auto.Workspace, dir string, err error) {
	// Every command of the CLI in a workspace opens the backend, which makes its table.
	if err := b.prepareTable(ctx); err != nil {
		return nil, "", err
	}
	p := workspace.Project{
		Name:    tokens.PackageName(project),
		Runtime: workspace.NewProjectRuntimeInfo("go", nil),
	}
	if dir, err = newWorkDir(); err != nil {
		return nil, "", err
	}
	ws, err = auto.NewLocalWorkspace(ctx, auto.WorkDir(dir), auto.Project(p), auto.Pulumi(b.cli),
		auto.SecretsProvider(b.secrets), auto.Program(program), auto.EnvVars(b.env()))
	if err != nil {
		_ = os.RemoveAll(dir)
		// The CLI it ran may quote the backend URL: its words leave this package redacted.
		return nil, "", b.redactor().Error(errors.Wrap(err, "set up the stack's workspace"))
	}
	return ws, dir, nil
}

// staysInSandbox refuses, inside the clusterplane sandbox, a backend off the machine: the sandbox
// promises that nothing leaves it, its state included.
func (b *Backend) staysInSandbox() error {
	if os.Getenv(cloudfacts.SandboxEnv) == "" || strings.HasPrefix(b.url, "file://") {
		return nil
	}
	return errors.Errorf("inside the clusterplane sandbox the state stays in a file:// folder (the sandbox's own when %s is "+
		"unset), and %s names %s: unset it there, name another file:// folder, or run outside the sandbox", BackendEnv, BackendEnv, b.redactor().String(b.url))
}

// FallbackEnv makes the CLI open a stack's secrets with the secrets manager its state records
// (Pulumi's own variable). A workspace here is a new folder each time, with no Pulumi.<stack>.yaml
// to name the stack's secrets manager; without the variable the CLI makes a new passphrase
// manager for every operation, with a new salt: a key derived once more from the passphrase
// (1,000,000 rounds of PBKDF2, a fifth of an unchanged preview's CPU), and every `up` saving the
// state under the new salt. A stack made with a KMS provider would be saved under a passphrase.
const FallbackEnv = "PULUMI_FALLBACK_TO_STATE_SECRETS_MANAGER"

// env is the environment the CLI, and the provider plugins it starts, run in besides this
// process's: the backend's URL, the state's secrets manager kept (FallbackEnv) and the plugins'
// settings (provider.PluginEnv).
func (b *Backend) env() map[string]string {
	env := map[string]string{BackendEnv: b.url, FallbackEnv: "true"}
	for k, v := range provider.PluginEnv {
		env[k] = v
	}
	return env
}

// stackOf is stack <project>/<stack> before its workspace is made, starting from the state the
// fleet scan kept for it (Records.Keep), if it kept one.
func (b *Backend) stackOf(project, stack string, program pulumi.RunFunc) *stackOf {
	s := &stackOf{backend: b, project: project, stack: stack, program: program}
	s.read.sum, s.read.state, s.read.parsed = b.parsed.Take(project + "/" + stack)
	return s
}

// Open opens stack <project>/<stack>; deploy.ErrNotDeployed when it does not exist.
func (b *Backend) Open(ctx context.Context, project, stack string, program pulumi.RunFunc) (stackstate.Stack, error) {
	kept := b.fileBackendKeeps(ctx, project, stack)
	if kept == keptNot {
		// Asking the CLI would start it only to hear the same, before every first deploy.
		return nil, stackstate.ErrNotDeployed
	}
	s := b.stackOf(project, stack, program)
	ws, dir, err := b.workspace(ctx, project, s.run)
	if err != nil {
		return nil, err
	}
	s.dir = dir
	if kept == keptThere {
		// Every command the Automation API runs on a stack names it (--stack): selecting it
		// first would only start the CLI once more, a fifth of an unchanged preview's time.
		s.auto, err = auto.SelectStack(ctx, stack, preselected{ws})
	} else {
		s.auto, err = auto.SelectStack(ctx, stack, ws)
	}
	if err != nil {
		_ = s.Close()
		return nil, classify(ctx, "select the stack", err, "", b, s)
	}
	return s, nil
}

// Create creates stack <project>/<stack>.
func (b *Backend) Create(ctx context.Context, project, stack string, program pulumi.RunFunc) (stackstate.Stack, error) {
	s := b.stackOf(project, stack, program)
	ws, dir, err := b.workspace(ctx, project, s.run)
	if err != nil {
		return nil, err
	}
	s.dir = dir
	s.keepsHistory, s.kept = b.historyHeld(ctx, project, stack)
	if s.auto, err = auto.NewStack(ctx, stack, ws); err != nil {
		_ = s.Close()
		if auto.IsCreateStack409Error(err) {
			// Made meanwhile by another operator.
			return b.Open(ctx, project, stack, program)
		}
		return nil, classify(ctx, "create the stack", err, "", b, s)
	}
	return s, nil
}

// Exists tells whether stack <project>/<stack> exists.
func (b *Backend) Exists(ctx context.Context, project, stack string) (bool, error) {
	if b.fileBackendKeeps(ctx, project, stack) == keptThere {
		return true, nil
	}
	s, err := b.Open(ctx, project, stack, func(*pulumi.Context) error { return nil })
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, s.Close()
}

// preselected is a workspace whose stack is known to exist: selecting it is a no-op.
type preselected struct{ auto.Workspace }

func (preselected) SelectStack(context.Context, string) error { return nil }

// kept is what a local file backend tells of one of its stacks, read without the CLI.
type kept int

const (
	// keptUnknown: another backend, layout or record form; the CLI is asked.
	keptUnknown kept = iota
	keptThere
	keptNot
)

// fileBackendKeeps tells whether a local file backend keeps stack <project>/<stack>, which the CLI
// keeps as .pulumi/stacks/<project>/<stack>.json in one of its forms (records.go). The answer is
// keptNot only in the project-scoped layout (.pulumi/meta.yaml, version 1), where the CLI looks
// for a stack in that folder alone, and only when no record of the stack is there in any form.
func (b *Backend) fileBackendKeeps(ctx context.Context, project, stack string) kept {
	root, ok := strings.CutPrefix(b.url, "file://")
	if !ok {
		return keptUnknown
	}
	store := dirBlobs{root: root, folders: &b.folders}
	_, err := findRecord(ctx, store, path.Join(".pulumi", "stacks", project), stack+".json")
	switch {
	case err == nil:
		return keptThere
	case !errors.Is(err, fs.ErrNotExist):
		return keptUnknown
	}
	if meta, err := store.read(ctx, metaFile); err == nil && projectScoped(meta) {
		return keptNot
	}
	return keptUnknown
}

// selfManaged tells whether the backend is one of Pulumi's self-managed ones (a file system,
// PostgreSQL, a bucket), whose stacks all belong to the organization "organization"; the other
// is Pulumi Cloud.
func (b *Backend) selfManaged() bool {
	for _, scheme := range []string{"file://", "postgres://", "postgresql://", "s3://", "gs://", "azblob://"} {
		if strings.HasPrefix(b.url, scheme) {
			return true
		}
	}
	return false
}

// Stacks are the names of the project's stacks (stackstate.Backend), as the CLI lists them in a
// workspace of the project: `pulumi stack ls`.
func (b *Backend) Stacks(ctx context.Context, project string) ([]string, error) {
	ws, dir, err := b.workspace(ctx, project, func(*pulumi.Context) error { return nil })
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	summaries, err := ws.ListStacks(ctx)
	if err != nil {
		return nil, b.redactor().Error(errors.Wrapf(err, "list the stacks of %s", project))
	}
	var out []string
	for _, s := range summaries {
		// A fully qualified name (organization/project/stack) ends with the stack's own.
		out = append(out, s.Name[strings.LastIndexByte(s.Name, '/')+1:])
	}
	return out, nil
}
