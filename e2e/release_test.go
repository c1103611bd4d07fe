//go:build e2e

package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// releaseVersion is the version the test releases.
const releaseVersion = "v0.0.1-test"

// releaseServer is a loopback server of a release's files, as GitHub serves a release's assets:
// it records the files asked for.
type releaseServer struct {
	*httptest.Server
	mu   sync.Mutex
	gets []string
}

func serveRelease(t *testing.T, dir string) *releaseServer {
	t.Helper()
	s := &releaseServer{}
	files := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.gets = append(s.gets, r.URL.Path)
		s.mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *releaseServer) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gets)
}

// release builds the release for this machine's platform into dir, with url as the plugin's
// download location, as `make release` does.
func release(t *testing.T, dir, url string) {
	t.Helper()
	cmd := exec.Command("go", "run", "./tools/release", "-version", releaseVersion, "-out", dir,
		"-download-url", url, "-platforms", runtime.GOOS+"/"+runtime.GOARCH)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release: %v\n%s", err, out)
	}
}

// withoutThePlugin is the test's environment with the engine acquiring plugins itself and no
// clusterplane plugin installed (the provider plugins stay: they are not the release's).
func (e *env) withoutThePlugin() {
	e.t.Helper()
	matches, _ := filepath.Glob(filepath.Join(e.dir, "home", "plugins", "resource-clusterplane-*"))
	for _, m := range matches {
		if err := os.RemoveAll(m); err != nil {
			e.t.Fatal(err)
		}
	}
	var vars []string
	for _, kv := range e.vars {
		if !strings.HasPrefix(kv, "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=") {
			vars = append(vars, kv)
		}
	}
	e.vars = vars
}

func TestTheEngineDownloadsTheReleasedPluginByItselfForYAMLAndTypeScript(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	server := serveRelease(t, dist)
	release(t, dist, server.URL)
	tarball := "/pulumi-resource-clusterplane-" + releaseVersion + "-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"
	if _, err := os.Stat(filepath.Join(dist, tarball)); err != nil {
		t.Fatalf("the release has no %s: %v", tarball, err)
	}
	run(t, dist, "sha256sum", "--check", "--quiet", "SHA256SUMS")
	sameVersionEverywhere(t, dist)

	t.Run("pulumi plugin install --server", func(t *testing.T) {
		e := newEnv(t)
		e.withoutThePlugin()
		e.must(e.dir, nil, "plugin", "install", "resource", "clusterplane", releaseVersion, "--server", server.URL)
		if _, err := os.Stat(filepath.Join(e.dir, "home", "plugins", "resource-clusterplane-"+releaseVersion, "pulumi-resource-clusterplane")); err != nil {
			t.Errorf("the plugin is not installed: %v", err)
		}
	})

	t.Run("pulumi-yaml", func(t *testing.T) { deployYAMLWithTheReleasedPlugin(t, server, tarball) })

	t.Run("typescript", func(t *testing.T) { deployTypeScriptWithTheReleasedPlugin(t, dist) })
	// One release build serves both checks: building a release is the slowest step of make e2e.
	t.Run("a release whose plugin tarball is renamed is not found by the engine", func(t *testing.T) {
		renamed := filepath.Join(t.TempDir(), "dist")
		if err := os.CopyFS(renamed, os.DirFS(dist)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(renamed, tarball), filepath.Join(renamed, "clusterplane-plugin-"+runtime.GOOS+".tar.gz")); err != nil {
			t.Fatal(err)
		}
		other := serveRelease(t, renamed)
		e := newEnv(t)
		e.withoutThePlugin()
		if r := e.pulumi(e.dir, nil, "plugin", "install", "resource", "clusterplane", releaseVersion, "--server", other.URL); r.err == nil {
			t.Errorf("the engine installed a plugin from a release without its tarball: %s", r)
		}
		if asked := other.asked(); len(asked) == 0 {
			t.Errorf("the engine never asked the release server for the plugin")
		}
	})
	if n := strings.Count(strings.Join(server.asked(), " "), tarball); n < 2 {
		t.Errorf("the plugin tarball was downloaded %d times, want once per Pulumi home that lacked it", n)
	}
}

// deployYAMLWithTheReleasedPlugin deploys the YAML example naming the release, with no plugin
// installed, and checks the engine downloaded the plugin's tarball from the release by itself.
func deployYAMLWithTheReleasedPlugin(t *testing.T, server *releaseServer, tarball string) {
	t.Helper()
	e := newEnv(t)
	e.withoutThePlugin()
	dir := filepath.Join(e.dir, "yaml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A YAML program names the release of each package it uses, as the README's Install says.
	text := strings.ReplaceAll(example(t, "pulumi-yaml/Pulumi.yaml"), "    options:\n      providers:",
		"    options:\n      version: "+strings.TrimPrefix(releaseVersion, "v")+"\n      pluginDownloadURL: "+server.URL+"\n      providers:")
	if strings.Count(text, "pluginDownloadURL") != 2 {
		t.Fatalf("the YAML example's components no longer have options to name the release in:\n%s", text)
	}
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	e.must(dir, nil, "stack", "init", "dev")
	e.must(dir, nil, "config", "set", "--secret", "digitaloceanToken", doToken)
	e.must(dir, nil, "up", "--yes", "--skip-preview")
	if !slices.Contains(server.asked(), tarball) {
		t.Errorf("the engine did not download %s: asked for %v", tarball, server.asked())
	}
	e.must(dir, nil, "state", "unprotect", "--all", "--yes")
	e.must(dir, nil, "destroy", "--yes", "--skip-preview")
}

// deployTypeScriptWithTheReleasedPlugin deploys the TypeScript example with the SDK as npm
// installs the released package and no plugin installed: the engine must fetch the plugin itself.
func deployTypeScriptWithTheReleasedPlugin(t *testing.T, dist string) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	e := newEnv(t)
	e.withoutThePlugin()
	dir := e.typeScriptExample(t)
	// The SDK as npm installs the released package; @pulumi/pulumi from tools/sdkcheck.
	e.releasedNodeModules(dir, filepath.Join(dist, "clusterplane-clusterplane-"+strings.TrimPrefix(releaseVersion, "v")+".tgz"))
	e.must(dir, nil, "stack", "init", "dev")
	e.must(dir, nil, "config", "set", "--secret", "digitaloceanToken", doToken)
	e.must(dir, nil, "up", "--yes", "--skip-preview")
	e.must(dir, nil, "state", "unprotect", "--all", "--yes")
	e.must(dir, nil, "destroy", "--yes", "--skip-preview")
}

// releasedNodeModules makes dir/node_modules with the released SDK tarball unpacked as
// @clusterplane/clusterplane and the packages of tools/sdkcheck.
func (e *env) releasedNodeModules(dir, tgz string) {
	e.t.Helper()
	sdk := filepath.Join(linkPackages(e.t, dir), "@clusterplane", "clusterplane")
	if err := os.MkdirAll(sdk, 0o755); err != nil {
		e.t.Fatal(err)
	}
	run(e.t, sdk, "tar", "-xzf", tgz, "--strip-components=1")
}

// sameVersionEverywhere checks that clusterplane version, the plugin's schema, the release's
// schema and the Node.js and Python packages all say the release's version.
func sameVersionEverywhere(t *testing.T, dist string) {
	t.Helper()
	v := strings.TrimPrefix(releaseVersion, "v")
	platform := runtime.GOOS + "-" + runtime.GOARCH
	bin := t.TempDir()
	run(t, bin, "tar", "-xzf", filepath.Join(dist, "clusterplane-"+releaseVersion+"-"+platform+".tar.gz"))
	run(t, bin, "tar", "-xzf", filepath.Join(dist, "pulumi-resource-clusterplane-"+releaseVersion+"-"+platform+".tar.gz"))
	out := func(dir, name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PULUMI_HOME="+filepath.Join(bin, "home"), "PULUMI_SKIP_UPDATE_CHECK=1")
		data, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return string(data)
	}
	schema, err := os.ReadFile(filepath.Join(dist, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	// pulumi package get-schema runs the plugin binary and asks it for its schema.
	served := out(bin, filepath.Join(root, ".engine", "bin", "pulumi"), "package", "get-schema", filepath.Join(bin, "pulumi-resource-clusterplane"))
	npm := out(bin, "tar", "-xzOf", filepath.Join(dist, "clusterplane-clusterplane-"+v+".tgz"), "package/package.json")
	wheels, _ := filepath.Glob(filepath.Join(dist, "pulumi_clusterplane-*.whl"))
	if len(wheels) != 1 {
		t.Fatalf("wheels %v, want one", wheels)
	}
	metadata := out(bin, "python3", "-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "+
		"print(z.read([n for n in z.namelist() if n.endswith('.dist-info/METADATA')][0]).decode())", wheels[0])
	for _, c := range []struct{ what, text, says string }{
		{"clusterplane version", out(bin, filepath.Join(bin, "clusterplane"), "version"), "clusterplane " + v + " "},
		{"the release's schema", string(schema), `"version": "` + v + `"`},
		{"the schema the plugin serves", served, `"version": "` + v + `"`},
		{"the npm package", npm, `"version": "` + v + `"`},
		// PEP 440 writes a pre-release label as a local version.
		{"the wheel", metadata, "Version: " + strings.Replace(v, "-", "+", 1) + "\n"},
	} {
		if !strings.Contains(c.text, c.says) {
			t.Errorf("%s does not say %q:\n%.600s", c.what, c.says, c.text)
		}
	}
}
