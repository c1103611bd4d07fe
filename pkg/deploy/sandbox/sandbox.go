// Package sandbox is `clusterplane sandbox`: loopback DigitalOcean and Civo APIs (the tests'
// pkg/loopback/fakedo and pkg/loopback/fakecivo), a local file backend with a generated passphrase and the
// real provider plugins pointed at those APIs, all in one folder, so that every command can be
// tried and a team's manifests tested without an account. Nothing in it talks to a real cloud:
// it refuses to start while a real token is in the environment, and inside it pkg/pulumi/provider refuses
// a manifest that names its own API URL or token.
//
// The folder holds everything the sandbox makes: the passphrase (passphrase, 0600), the Pulumi
// home with the plugins linked in (home), the stacks (state), the temporary files of the engine
// and its workspaces (tmp), the clouds (clouds.json) and, while it runs in the background, how to
// reach it (sandbox.json) and its log (sandbox.log). Removing the folder removes the sandbox.
//
// The clouds take no time, but for one thing: the DigitalOcean cloud upgrades a cluster's
// Kubernetes over $CLUSTERPLANE_SANDBOX_UPGRADE_TIME (UpgradeTimeEnv; 4s by default, 0 at once),
// reporting it upgrading at its old version meanwhile, as DigitalOcean does.
package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/ownedfs"
	"github.com/pkg/errors"
)

// Token is the token the loopback cloud id accepts: sandbox-<cloud>-token-loopback-only. It is no
// secret: it opens nothing but the sandbox's own API on 127.0.0.1, and a real cloud refuses it.
func Token(id cloud.ID) string { return "sandbox-" + string(id) + "-token-loopback-only" }

// DirEnv names the sandbox's folder in the environment it gives its commands: its presence says
// "inside the sandbox" to pkg/pulumi/provider, and sandbox commands run there find their folder by it.
const DirEnv = cloudfacts.SandboxEnv

// DefaultDir is the folder used without --dir or $CLUSTERPLANE_SANDBOX (cloudfacts.SandboxDir).
const DefaultDir = cloudfacts.SandboxDir

// EngineEnv names a folder holding the Pulumi CLI in bin/ and the provider plugins in plugins/,
// as `make engine` builds .engine; without it the sandbox looks for .engine upwards from the
// current directory and from its own executable.
const EngineEnv = "CLUSTERPLANE_ENGINE"

// Files and folders inside the sandbox's folder.
const (
	markerFile     = ".clusterplane-sandbox"
	passphraseFile = "passphrase"
	cloudsFile     = "clouds.json"
	serverFile     = "sandbox.json"
	logFile        = "sandbox.log"
)

// tokenVars are the environment variables each cloud's provider reads credentials from (its
// driver's token variable and Credentials), with the only value each may hold when the sandbox
// starts: its own token, or nothing.
func tokenVars() map[string]string {
	out := map[string]string{}
	for _, d := range clouds.All() {
		out[d.Env().TokenEnv] = Token(d.ID())
		for _, v := range d.Credentials() {
			out[v] = ""
		}
	}
	return out
}

// CheckEnvironment refuses an environment holding a credential the providers would read, other
// than the sandbox's own tokens: a sandbox must never be one typo away from a real account. The
// error names the variables, never their values.
func CheckEnvironment(environ []string) error {
	var set []string
	vars := tokenVars()
	for _, kv := range environ {
		key, value, _ := strings.Cut(kv, "=")
		own, ok := vars[key]
		if ok && value != "" && value != own {
			set = append(set, key)
		}
	}
	if len(set) == 0 {
		return nil
	}
	sort.Strings(set)
	return errors.Errorf("%s set in the environment: the sandbox never talks to a real cloud and "+
		"refuses to start beside a real credential; unset it (unset %s) and run again",
		strings.Join(set, ", "), strings.Join(set, " "))
}

// Dir is the sandbox's folder: dir when given, else $CLUSTERPLANE_SANDBOX (inside a sandbox),
// else the nearest DefaultDir holding a sandbox's marker in the current directory or a folder
// above it (as git finds its repository: a command run from a subfolder of a project uses the
// project's sandbox, not a new empty one), else DefaultDir in the current directory; made
// absolute, as the environment it goes into is used from anywhere. A sandbox folder above that
// is not the user's alone is passed over: prepare would refuse it.
func Dir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv(DirEnv)
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", errors.Wrap(err, "the sandbox's folder")
		}
		for d := wd; ; d = filepath.Dir(d) {
			found := filepath.Join(d, DefaultDir)
			if ownedfs.Check(found) == nil && ownedfs.CheckFile(filepath.Join(found, markerFile)) == nil {
				return found, nil
			}
			if d == filepath.Dir(d) {
				break
			}
		}
		dir = DefaultDir
	}
	abs, err := filepath.Abs(dir)
	return abs, errors.Wrap(err, "the sandbox's folder")
}

// Exists tells whether dir holds a sandbox already (its marker), so that a command can say when
// it starts a new, empty one.
func Exists(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, markerFile))
	return err == nil
}

// prepare makes the sandbox's folder, or checks that an existing one is a sandbox's: the marker,
// the passphrase (made once, 0600), the Pulumi home with the plugins of engine linked in, the
// backend and the temporary folder. The engine runs plugins from these folders and the stacks'
// state is in them: each must be this user's alone (ownedfs), or it is refused.
func prepare(dir string, engine Engine) error {
	if err := claim(dir); err != nil {
		return err
	}
	for _, sub := range []string{"home", "state", "tmp", "cache"} {
		if _, err := ownedfs.MkdirAll(dir, sub); err != nil {
			return errors.Wrap(err, "make the sandbox's folders")
		}
	}
	pass := filepath.Join(dir, passphraseFile)
	if _, err := os.Lstat(pass); errors.Is(err, os.ErrNotExist) {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return errors.Wrap(err, "generate the sandbox's passphrase")
		}
		if err := os.WriteFile(pass, []byte(hex.EncodeToString(b)), 0o600); err != nil {
			return errors.Wrap(err, "write the sandbox's passphrase")
		}
	} else if err != nil {
		return errors.Wrap(err, "read the sandbox's passphrase")
	} else if err := ownedfs.CheckFile(pass); err != nil {
		return errors.Wrap(err, "the sandbox's passphrase")
	}
	for _, p := range engine.Plugins {
		folder, err := ownedfs.MkdirAll(dir, "home", "plugins", "resource-"+p.Name+"-v"+p.Version)
		if err != nil {
			return errors.Wrapf(err, "install the %s plugin in the sandbox", p.Name)
		}
		link := filepath.Join(folder, "pulumi-resource-"+p.Name)
		if target, err := os.Readlink(link); err == nil && target == p.Binary {
			continue
		}
		_ = os.Remove(link)
		if err := os.Symlink(p.Binary, link); err != nil {
			return errors.Wrapf(err, "install the %s plugin in the sandbox", p.Name)
		}
	}
	return nil
}

// claim makes dir a sandbox's folder, or checks it is one: a folder that exists, is not empty and
// has no marker is someone else's, and the sandbox neither fills it nor (on reset) removes it. The
// folder itself must be this user's alone, never a link: the sandbox runs plugins from it and
// trusts the process and URLs its sandbox.json names.
func claim(dir string) error {
	// The folders above it are the user's choice (--dir); the sandbox's own is made 0700.
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return errors.Wrap(err, "make the sandbox's folder")
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return errors.Wrap(err, "make the sandbox's folder")
	}
	if err := ownedfs.Check(dir); err != nil {
		return errors.Wrap(err, "the sandbox's folder")
	}
	marker := filepath.Join(dir, markerFile)
	if _, err := os.Lstat(marker); err == nil {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return errors.Wrap(err, "read the sandbox's folder")
	}
	if len(entries) > 0 {
		return errors.Errorf("%s is not a sandbox's folder (it has no %s file) and is not empty: choose another with --dir", dir, markerFile)
	}
	text := "A clusterplane sandbox: loopback clouds and their stacks. `clusterplane sandbox reset` removes this folder.\n"
	return errors.Wrap(os.WriteFile(marker, []byte(text), 0o644), "mark the sandbox's folder")
}

// Reset stops the sandbox of dir if it runs and removes dir, telling whether there was one to
// remove; a folder that is not a sandbox's is refused, a missing one is nothing to do.
func Reset(dir string) (removed bool, err error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(dir, markerFile)); err != nil {
		return false, errors.Errorf("%s is not a sandbox's folder (it has no %s file): not removed", dir, markerFile)
	}
	if _, err := Stop(dir); err != nil {
		return false, err
	}
	return true, errors.Wrap(os.RemoveAll(dir), "remove the sandbox's folder")
}

// Plugin is a provider plugin the sandbox installs.
type Plugin struct {
	// Name is the package ("digitalocean"), Version the one the programs' SDK asks for.
	Name, Version string
	// Binary is the plugin's executable.
	Binary string
}

// Engine is where the Pulumi CLI and the provider plugins are.
type Engine struct {
	// Bin holds the pulumi CLI and its language hosts.
	Bin     string
	Plugins []Plugin
}

// pluginModule is a provider plugin the programs use, by the Go SDK module whose version it
// must have; the fallback is go.mod's, for a binary built without module information.
type pluginModule struct{ name, module, fallback string }

// pluginModules are every cloud's plugin, from its driver, in the drivers' order.
func pluginModules() []pluginModule {
	var out []pluginModule
	for _, d := range clouds.All() {
		out = append(out, pluginModule{string(d.ID()), d.ProviderSDK(), d.ProviderSDKVersion()})
	}
	return out
}

// FindEngine finds the engine: in dir when given, else in $CLUSTERPLANE_ENGINE, else in .engine
// upwards from the current directory or from the running executable.
func FindEngine(dir string) (Engine, error) {
	if dir == "" {
		dir = os.Getenv(EngineEnv)
	}
	candidates := []string{dir}
	if dir == "" {
		candidates = nil
		wd, _ := os.Getwd()
		exe, _ := os.Executable()
		for _, start := range []string{wd, filepath.Dir(exe)} {
			for d := start; d != "" && d != filepath.Dir(d); d = filepath.Dir(d) {
				candidates = append(candidates, filepath.Join(d, ".engine"))
			}
		}
	}
	partial := ""
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if missing := missingIn(c); partial == "" && len(missing) > 0 && len(missing) < 1+len(pluginModules()) {
			partial = fmt.Sprintf(" (%s lacks %s)", c, strings.Join(missing, " and "))
		}
		if _, ok := engineIn(c); ok {
			real, err := trustEngine(c)
			if err != nil {
				return Engine{}, err
			}
			// The folder checked, not a link that could be changed after the check.
			e, _ := engineIn(real)
			if err := trustPrograms(&e); err != nil {
				return Engine{}, errors.Wrapf(err, "the Pulumi engine found in %s (or name another with --engine or $%s)", c, EngineEnv)
			}
			return e, nil
		}
	}
	var plugins, names, binaries []string
	for _, m := range pluginModules() {
		plugins = append(plugins, "`pulumi plugin install resource "+m.name+" "+m.fallback+"`")
		binaries = append(binaries, "plugins/pulumi-resource-"+m.name)
	}
	for _, d := range clouds.All() {
		names = append(names, d.Env().Name)
	}
	return Engine{}, errors.Errorf("no Pulumi engine with the %s plugins found%s: the sandbox needs "+
		"a folder .engine with bin/pulumi, %s, or "+
		"%s naming one. In a clone of clusterplane `make engine` builds the engine from Go modules and gets the "+
		"plugins one of two ways: %s (downloads from get.pulumi.com), or a build from the pinned sources in "+
		"../shared/providers-src; when neither works it fails, saying so", strings.Join(names, " and "), partial,
		strings.Join(binaries, " and "), EngineEnv, strings.Join(plugins, " and "))
}

// missingIn names what dir lacks of an engine folder: bin/pulumi and the plugins.
func missingIn(dir string) []string {
	var missing []string
	if _, err := os.Stat(filepath.Join(dir, "bin", "pulumi")); err != nil {
		if _, err := os.Stat(filepath.Join(dir, "bin", "pulumi.exe")); err != nil {
			missing = append(missing, "bin/pulumi")
		}
	}
	for _, m := range pluginModules() {
		if _, err := os.Stat(filepath.Join(dir, "plugins", "pulumi-resource-"+m.name)); err != nil {
			missing = append(missing, "plugins/pulumi-resource-"+m.name)
		}
	}
	return missing
}

// trustEngine refuses an engine folder (dir, its bin and plugins) that anyone but this user or
// root owns or may write in: the sandbox puts bin first on PATH and runs the plugins, and a
// .engine found upwards from the current directory may be in a shared folder (/tmp/x/.engine).
// A link is followed (an engine may be linked from where it is installed): its target is checked
// and returned, for the engine to be used from there.
func trustEngine(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", errors.Wrap(err, "the Pulumi engine's folder")
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", errors.Wrap(err, "the Pulumi engine's folder")
	}
	for _, d := range []string{real, filepath.Join(real, "bin"), filepath.Join(real, "plugins")} {
		if err := ownedfs.CheckInstalled(d); err != nil {
			return "", errors.Wrapf(err, "the Pulumi engine found in %s (or name another with --engine or $%s)", dir, EngineEnv)
		}
	}
	return real, nil
}

// trustPrograms refuses an engine whose programs (the CLI, its language hosts, the provider
// plugins) anyone but this user or root owns or may write, as trustEngine refuses its folders: a
// folder of the user's alone holding a plugin anyone may write still runs anyone's program, with
// the clouds' tokens in its environment. A plugin that is a link is followed, its target and the
// target's folder checked, and the target used from then on.
func trustPrograms(e *Engine) error {
	hosts, err := filepath.Glob(filepath.Join(e.Bin, "pulumi-language-*"))
	if err != nil {
		return errors.Wrap(err, "list the engine's language hosts")
	}
	for _, path := range append([]string{filepath.Join(e.Bin, "pulumi"), filepath.Join(e.Bin, "pulumi.exe")}, hosts...) {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if _, err := trustProgram(path); err != nil {
			return err
		}
	}
	for i, p := range e.Plugins {
		real, err := trustProgram(p.Binary)
		if err != nil {
			return err
		}
		e.Plugins[i].Binary = real
	}
	return nil
}

// trustProgram checks the program at path, in a folder trustEngine checked, and returns where it
// is: path itself, or the file a link there points at, once that file and its folder pass.
func trustProgram(path string) (string, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return "", errors.Wrap(err, "check the engine's program")
	}
	if info.Mode()&fs.ModeSymlink == 0 {
		return path, ownedfs.CheckInstalledFile(path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", errors.Wrapf(err, "follow the link %s", path)
	}
	if err := ownedfs.CheckInstalled(filepath.Dir(real)); err != nil {
		return "", errors.Wrapf(err, "%s links to %s", path, real)
	}
	if err := ownedfs.CheckInstalledFile(real); err != nil {
		return "", errors.Wrapf(err, "%s links to %s", path, real)
	}
	return real, nil
}

// engineIn is the engine in dir, if dir holds one.
func engineIn(dir string) (Engine, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Engine{}, false
	}
	e := Engine{Bin: filepath.Join(abs, "bin")}
	if _, err := os.Stat(filepath.Join(e.Bin, "pulumi")); err != nil {
		if _, err := os.Stat(filepath.Join(e.Bin, "pulumi.exe")); err != nil {
			return Engine{}, false
		}
	}
	info, _ := debug.ReadBuildInfo()
	for _, m := range pluginModules() {
		binary := filepath.Join(abs, "plugins", "pulumi-resource-"+m.name)
		if _, err := os.Stat(binary); err != nil {
			return Engine{}, false
		}
		version := m.fallback
		if info != nil {
			if i := slices.IndexFunc(info.Deps, func(d *debug.Module) bool { return d.Path == m.module }); i >= 0 {
				version = strings.TrimPrefix(info.Deps[i].Version, "v")
			}
		}
		e.Plugins = append(e.Plugins, Plugin{m.name, version, binary})
	}
	return e, true
}

// Environ is environ with the sandbox's environment in place: the engine first on PATH (and the
// folder of the running clusterplane, so that `clusterplane` inside is this one), the Pulumi home,
// backend and passphrase file of dir, the loopback clouds' URLs and tokens, and the temporary
// folder. A passphrase of the caller's is dropped: it would win over the file.
func Environ(environ []string, dir string, engine Engine, urls map[cloud.ID]string) []string {
	path := engine.Bin
	if exe, err := os.Executable(); err == nil {
		path += string(os.PathListSeparator) + filepath.Dir(exe)
	}
	vars := Vars(dir, urls)
	// The cache folder moves into the sandbox (what clusterplane and the engine cache there is
	// the sandbox's), but Go's build cache stays the user's: a Go program built inside would
	// otherwise compile everything afresh.
	if !slices.ContainsFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, "GOCACHE=") }) {
		if cache, err := os.UserCacheDir(); err == nil {
			vars = append(vars, "GOCACHE="+filepath.Join(cache, "go-build"))
		}
	}
	drop := map[string]bool{"PULUMI_CONFIG_PASSPHRASE": true}
	for _, kv := range vars {
		key, _, _ := strings.Cut(kv, "=")
		drop[key] = true
	}
	var out []string
	for _, kv := range environ {
		key, value, _ := strings.Cut(kv, "=")
		switch {
		case key == "PATH":
			path += string(os.PathListSeparator) + value
		case !drop[key]:
			out = append(out, kv)
		}
	}
	return append(append(out, "PATH="+path), vars...)
}

// Vars are the variables the sandbox sets, PATH aside: urls are the loopback clouds' API URLs by
// cloud, each cloud's token and URL going into its driver's variables.
func Vars(dir string, urls map[cloud.ID]string) []string {
	vars := []string{
		DirEnv + "=" + dir,
		"PULUMI_HOME=" + filepath.Join(dir, "home"),
		"PULUMI_BACKEND_URL=file://" + filepath.ToSlash(filepath.Join(dir, "state")),
		"PULUMI_CONFIG_PASSPHRASE_FILE=" + filepath.Join(dir, passphraseFile),
		"PULUMI_SKIP_UPDATE_CHECK=1",
		"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true",
		// Only the plugins linked into the sandbox's home: never another binary of the name on PATH.
		"PULUMI_IGNORE_AMBIENT_PLUGINS=true",
		"PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1",
	}
	for _, d := range clouds.All() {
		vars = append(vars, d.Env().TokenEnv+"="+Token(d.ID()), d.Env().URLEnv+"="+urls[d.ID()])
	}
	return append(vars,
		"TMPDIR="+filepath.Join(dir, "tmp"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		// The providers' HashiCorp version check, which would call out and leave
		// ~/.terraform.d behind.
		"CHECKPOINT_DISABLE=1",
	)
}
