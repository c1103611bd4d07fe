// Command release builds a clusterplane release into a folder (make release VERSION=v0.1.0):
//
//   - clusterplane and the plugin for each platform, the plugin packed as Pulumi finds it,
//     pulumi-resource-clusterplane-v<version>-<os>-<arch>.tar.gz, the command as
//     clusterplane-v<version>-<os>-<arch>.tar.gz;
//   - the package schema, with the version and pluginDownloadURL;
//   - the Node.js SDK as npm pack makes it, the Python SDK as an sdist and a pure-Python wheel;
//   - the Go module as a module proxy serves it (goproxy/), so that `go get` of the tag resolves;
//   - SHA256SUMS of every file.
//
// The version is said once, in the binaries (pkg/release, by -ldflags), and everything else is
// generated from them. The same version built twice gives the same files: archives carry fixed
// times, owners and modes, and the builds are -trimpath without build ids.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/pkg/errors"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// Module is the Go module path of the repository.
const Module = "github.com/clusterplane/clusterplane"

// Platforms are the release's operating systems and architectures.
var Platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// epoch is every archived file's time: fixed, so that archives do not depend on when they were made.
var epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

var semverTag = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)

func main() {
	version := flag.String("version", "", "the release's version, a semver tag such as v0.1.0 (required)")
	out := flag.String("out", "dist", "the folder to write the release into (emptied first)")
	url := flag.String("download-url", plugin.DefaultDownloadURL, "where the engine downloads the plugin from (the schema's pluginDownloadURL)")
	platforms := flag.String("platforms", strings.Join(Platforms, ","), "the os/arch pairs to build, comma-separated")
	flag.Parse()
	if !semverTag.MatchString(*version) {
		fmt.Fprintf(os.Stderr, "release: -version %q is not a semver tag such as v0.1.0\n", *version)
		os.Exit(2)
	}
	r := &release{version: *version, url: *url, out: *out, platforms: strings.Split(*platforms, ",")}
	if err := r.run(); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

type release struct {
	version, url, out string
	platforms         []string
	work              string
}

func (r *release) ldflags() string {
	return "-s -w -buildid= -X " + Module + "/pkg/release.version=" + r.version + " -X " + Module + "/pkg/plugin.downloadURL=" + r.url
}

func (r *release) run() error {
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run it from the repository's root (make release)")
	}
	if err := os.RemoveAll(r.out); err != nil {
		return err
	}
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "clusterplane-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	r.work = work
	for _, step := range []struct {
		name string
		do   func() error
	}{
		{"binaries", r.binaries},
		{"schema and SDKs", r.sdks},
		{"Go module", r.goModule},
		{"checksums", r.checksums},
	} {
		fmt.Fprintf(os.Stderr, "--- %s\n", step.name)
		if err := step.do(); err != nil {
			return errors.Wrap(err, step.name)
		}
	}
	return nil
}

// run runs a command in dir, its output on stderr.
func run(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	return errors.Wrap(cmd.Run(), name+" "+strings.Join(args, " "))
}

func (r *release) binaries() error {
	for _, p := range r.platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return errors.Errorf("platform %q is not os/arch", p)
		}
		dir := filepath.Join(r.work, "bin", goos+"-"+goarch)
		err := run(".", []string{"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=" + goarch, "GOFLAGS=-buildvcs=false"},
			"go", "build", "-trimpath", "-ldflags", r.ldflags(), "-o", dir+string(os.PathSeparator),
			"./cmd/clusterplane", "./cmd/"+plugin.Name)
		if err != nil {
			return err
		}
		exe := ""
		if goos == "windows" {
			exe = ".exe"
		}
		for _, name := range []string{plugin.Name, "clusterplane"} {
			data, err := os.ReadFile(filepath.Join(dir, name+exe))
			if err != nil {
				return err
			}
			archive := fmt.Sprintf("%s-%s-%s-%s.tar.gz", name, r.version, goos, goarch)
			if err := writeTarGz(filepath.Join(r.out, archive), map[string][]byte{name + exe: data}, 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// host is the binaries' folder for this machine's platform, built with the release's flags.
func (r *release) host() (string, error) {
	dir := filepath.Join(r.work, "host")
	err := run(".", []string{"CGO_ENABLED=0", "GOFLAGS=-buildvcs=false"}, "go", "build", "-trimpath", "-ldflags", r.ldflags(),
		"-o", dir+string(os.PathSeparator), "./tools/pulumischema")
	return dir, err
}

func (r *release) sdks() error {
	host, err := r.host()
	if err != nil {
		return err
	}
	schema := filepath.Join(r.out, "schema.json")
	if err := run(".", nil, filepath.Join(host, "pulumischema"), schema); err != nil {
		return err
	}
	sdk := filepath.Join(r.work, "sdk")
	abs, err := filepath.Abs(schema)
	if err != nil {
		return err
	}
	if err := run("tools/sdkgen", nil, "go", "run", ".", abs, sdk); err != nil {
		return err
	}
	if err := r.nodejs(filepath.Join(sdk, "nodejs")); err != nil {
		return errors.Wrap(err, "the Node.js SDK")
	}
	return errors.Wrap(r.python(filepath.Join(sdk, "python")), "the Python SDK")
}

// nodejs compiles the SDK with the TypeScript of tools/sdkcheck (pinned by its lockfile) and packs
// it as npm publishes it: package.json and the compiled files at the package's root.
func (r *release) nodejs(dir string) error {
	modules, err := filepath.Abs("tools/sdkcheck/node_modules")
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(modules, ".bin", "tsc")); err != nil {
		if err := run("tools/sdkcheck", nil, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
			return err
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		return err
	}
	if err := run(dir, nil, filepath.Join(modules, ".bin", "tsc"), "-p", "tsconfig.json"); err != nil {
		return err
	}
	bin := filepath.Join(dir, "bin")
	for _, f := range []string{"package.json", "README.md"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(bin, f), data, 0o644); err != nil {
			return err
		}
	}
	out, err := filepath.Abs(r.out)
	if err != nil {
		return err
	}
	return run(bin, nil, "npm", "pack", "--pack-destination", out, "--loglevel=error")
}

// python writes the SDK as an sdist and a pure-Python wheel, by the packaging specifications
// (PEP 517's sdist layout, PEP 427's wheel): no build tools needed, and every byte fixed.
func (r *release) python(dir string) error {
	setup, err := os.ReadFile(filepath.Join(dir, "setup.py"))
	if err != nil {
		return err
	}
	version := regexp.MustCompile(`(?m)^VERSION = "([^"]+)"`).FindSubmatch(setup)
	if version == nil {
		return errors.New("setup.py says no VERSION")
	}
	var requires []string
	if m := regexp.MustCompile(`(?s)install_requires=\[(.*?)\]`).FindSubmatch(setup); m != nil {
		for _, q := range regexp.MustCompile(`'([^']+)'`).FindAllSubmatch(m[1], -1) {
			requires = append(requires, string(q[1]))
		}
	}
	const name = "pulumi_clusterplane"
	v := string(version[1])
	var meta strings.Builder
	fmt.Fprintf(&meta, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n", name, v)
	meta.WriteString("Summary: Kubernetes clusters and node pools on " + cloudNames() + ", checked before any cloud call.\n")
	meta.WriteString("License: Apache-2.0\nProject-URL: Repository, https://github.com/clusterplane/clusterplane\nRequires-Python: >=3.9\n")
	for _, req := range requires {
		fmt.Fprintf(&meta, "Requires-Dist: %s\n", req)
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(filepath.Join(dir, name), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		return err
	}
	// The sdist: the package, setup.py and PKG-INFO under <name>-<version>/.
	sdist := map[string][]byte{}
	root := name + "-" + v + "/"
	for f, data := range files {
		sdist[root+f] = data
	}
	sdist[root+"setup.py"] = setup
	sdist[root+"PKG-INFO"] = []byte(meta.String())
	if err := writeTarGz(filepath.Join(r.out, name+"-"+v+".tar.gz"), sdist, 0o644); err != nil {
		return err
	}
	// The wheel: the package, and its .dist-info with a RECORD of every file's hash.
	info := name + "-" + v + ".dist-info/"
	wheel := map[string][]byte{}
	for f, data := range files {
		wheel[f] = data
	}
	wheel[info+"METADATA"] = []byte(meta.String())
	wheel[info+"WHEEL"] = []byte("Wheel-Version: 1.0\nGenerator: clusterplane-release\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
	wheel[info+"top_level.txt"] = []byte(name + "\n")
	var record strings.Builder
	for _, f := range sorted(wheel) {
		sum := sha256.Sum256(wheel[f])
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f, base64.RawURLEncoding.EncodeToString(sum[:]), len(wheel[f]))
	}
	fmt.Fprintf(&record, "%sRECORD,,\n", info)
	wheel[info+"RECORD"] = []byte(record.String())
	return writeZip(filepath.Join(r.out, name+"-"+v+"-py3-none-any.whl"), wheel)
}

// goModule writes the repository's committed tree as the Go module proxy serves the version: with
// GOPROXY=file://<out>/goproxy, `go get github.com/clusterplane/clusterplane/sdk/go/clusterplane@<version>`
// resolves as it will once the tag is pushed.
func (r *release) goModule() error {
	dir := filepath.Join(r.out, "goproxy", Module, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	mv := module.Version{Path: Module, Version: r.version}
	if err := modzip.CreateFromVCS(&buf, mv, root, "HEAD", ""); err != nil {
		return errors.Wrap(err, "zip the module from the last commit")
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		r.version + ".zip":  buf.Bytes(),
		r.version + ".mod":  gomod,
		r.version + ".info": []byte(fmt.Sprintf(`{"Version":%q,"Time":%q}`+"\n", r.version, epoch.Format(time.RFC3339))),
		"list":              []byte(r.version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checksums writes SHA256SUMS of every file in the release, as sha256sum -c reads them.
func (r *release) checksums() error {
	var lines []string
	err := filepath.WalkDir(r.out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.out, path)
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(lines)
	return os.WriteFile(filepath.Join(r.out, "SHA256SUMS"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func sorted(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// writeTarGz writes files (name to content) as a tar.gz with fixed times, owners and mode.
func writeTarGz(path string, files map[string][]byte, mode int64) error {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	gz.ModTime = epoch
	tw := tar.NewWriter(gz)
	for _, name := range sorted(files) {
		hdr := &tar.Header{Name: name, Mode: mode, Size: int64(len(files[name])), ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(files[name]); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeZip writes files as a zip with fixed times.
func writeZip(path string, files map[string][]byte) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sorted(files) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: epoch})
		if err != nil {
			return err
		}
		if _, err := w.Write(files[name]); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// cloudNames are the clouds' names as people write them, as a sentence lists them: "Civo and
// DigitalOcean", from the drivers.
func cloudNames() string {
	var names []string
	for _, d := range clouds.All() {
		names = append(names, d.Env().Name)
	}
	return strings.Join(names, " and ")
}
