package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"golang.org/x/mod/modfile"
)

const root = "../.."

func TestTheSameFilesMakeTheSameImage(t *testing.T) {
	dir := t.TempDir()
	program := filepath.Join(dir, "program")
	if err := os.WriteFile(program, []byte("#!not a shell\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	digest := func(content string, modified time.Time) v1.Hash {
		t.Helper()
		if err := os.WriteFile(program, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(program, modified, modified); err != nil {
			t.Fatal(err)
		}
		base, err := base()
		if err != nil {
			t.Fatal(err)
		}
		img, err := build(t.TempDir(), spec{name: "test", layers: [][]entry{base, {hostFile(bin+"/program", program, 0o755)}},
			entrypoint: []string{bin + "/program"}, labels: map[string]string{"org.opencontainers.image.version": "1.2.3"}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	first := digest("one", time.Now())
	if again := digest("one", time.Now().Add(-time.Hour)); again != first {
		t.Errorf("the same file built again, touched an hour apart, gave %s then %s", first, again)
	}
	if other := digest("two", time.Now()); other == first {
		t.Errorf("another file gave the same digest %s", first)
	}
}

// pinned is the version go.mod (in root/dir) requires of module, without the v.
func pinned(t *testing.T, dir, module string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == module {
			return strings.TrimPrefix(r.Mod.Version, "v")
		}
	}
	t.Fatalf("%s/go.mod does not require %s", dir, module)
	return ""
}

// unpack extracts img's layers, lowest first, into a new folder, with their modes and owners.
func unpack(t *testing.T, img v1.Image) string {
	t.Helper()
	dir := t.TempDir()
	// The folder is the root the image's user runs in: it must be able to enter it.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(dir, filepath.Clean("/"+h.Name))
			switch h.Typeflag {
			case tar.TypeDir:
				err = os.MkdirAll(target, 0o755)
			case tar.TypeSymlink:
				err = os.Symlink(h.Linkname, target)
			case tar.TypeReg:
				var f *os.File
				if f, err = os.OpenFile(target, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600); err == nil {
					_, err = io.Copy(f, tr)
					err = errors.Join(err, f.Close())
				}
			default:
				t.Fatalf("%s: a tar entry of type %c, which the images do not make", h.Name, h.Typeflag)
			}
			if err == nil && h.Typeflag != tar.TypeSymlink {
				err = os.Chmod(target, h.FileInfo().Mode())
			}
			if err == nil && os.Getuid() == 0 {
				err = os.Lchown(target, h.Uid, h.Gid)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		rc.Close()
	}
	return dir
}

// run runs args in the unpacked image at dir as its config says (its user, environment and
// working folder), with dir as the root: nothing of the host's is reachable, no shell nor loader.
func run(t *testing.T, dir string, cfg v1.Config, args ...string) (string, error) {
	t.Helper()
	ids := strings.Split(cfg.User, ":")
	uid, err1 := strconv.Atoi(ids[0])
	gid, err2 := strconv.Atoi(ids[len(ids)-1])
	if err1 != nil || err2 != nil {
		t.Fatalf("the user %q is not numeric", cfg.User)
	}
	// A command that hangs fails the test rather than blocking it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env, cmd.Dir = cfg.Env, cfg.WorkingDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: dir, Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func TestTheImagesRunFromTheirUnpackedLayouts(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, ".engine", "bin", "pulumi")); err != nil {
		t.Skip("no engine in .engine (make engine builds it): the clusterplane image is made from it")
	}
	if os.Getuid() != 0 {
		t.Skip("running an image's binaries with its folder as the root (chroot) needs root")
	}
	version := func(s string) string { return regexp.QuoteMeta(s) }
	pulumi := pinned(t, "tools/engine", "github.com/pulumi/pulumi/pkg/v3")
	tests := []struct {
		image string
		// runs are commands run in the image, each with a pattern its output must match;
		// {version} is the version the image's label says.
		runs  [][2]string
		files []string
	}{
		{
			image: "clusterplane",
			runs: [][2]string{
				{"clusterplane --help", `(?m)^\s+serve\s`},
				{"clusterplane version", `^clusterplane {version} `},
				{"pulumi version", "^v" + version(pulumi) + "$"},
				{"pulumi-resource-digitalocean -version", "^" + version(pinned(t, ".", "github.com/pulumi/pulumi-digitalocean/sdk/v4")) + "$"},
				{"pulumi-resource-civo -version", "^" + version(pinned(t, ".", "github.com/pulumi/pulumi-civo/sdk/v2")) + "$"},
			},
			files: []string{"clusterplane", "pulumi", "pulumi-resource-digitalocean", "pulumi-resource-civo"},
		},
		{
			image: "karpenter-clusterplane",
			runs:  [][2]string{{"karpenter-clusterplane --help", `(?m)^\s+-batch-`}},
			files: []string{"karpenter-clusterplane"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			path, err := layout.FromPath(filepath.Join(root, "bin", "images", tt.image))
			if err != nil {
				t.Skipf("no layout in bin/images/%s (make images builds it): %v", tt.image, err)
			}
			index, err := path.ImageIndex()
			if err != nil {
				t.Fatal(err)
			}
			manifest, err := index.IndexManifest()
			if err != nil {
				t.Fatal(err)
			}
			if len(manifest.Manifests) != 1 {
				t.Fatalf("the layout holds %d images, want 1", len(manifest.Manifests))
			}
			img, err := index.Image(manifest.Manifests[0].Digest)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			cfg := cf.Config
			checkConfig(t, tt.image, cf)
			dir := unpack(t, img)
			for _, f := range tt.files {
				info, err := os.Stat(filepath.Join(dir, bin, f))
				if err != nil || info.Mode()&0o111 == 0 || info.Mode()&0o022 != 0 {
					t.Errorf("%s/%s is not an executable only root may change: %v", bin, f, err)
				}
			}
			for _, shell := range []string{"/bin/sh", "/usr/bin/sh", "/bin/bash"} {
				if _, err := os.Lstat(filepath.Join(dir, shell)); err == nil {
					t.Errorf("the image holds %s: it should need no shell", shell)
				}
			}
			for _, r := range tt.runs {
				args := strings.Fields(r[0])
				args[0] = bin + "/" + args[0]
				out, err := run(t, dir, cfg, args...)
				if err != nil {
					t.Errorf("%s in the image: %v\n%s", r[0], err, out)
					continue
				}
				want := strings.ReplaceAll(r[1], "{version}", version(cfg.Labels["org.opencontainers.image.version"]))
				if !regexp.MustCompile(want).MatchString(strings.TrimSpace(out)) {
					t.Errorf("%s in the image printed %q, want it to match %s", r[0], out, want)
				}
			}
			if tt.image == "clusterplane" {
				if got := cfg.Labels["io.clusterplane.pulumi.version"]; got != pulumi {
					t.Errorf("the label says Pulumi %s, tools/engine pins %s", got, pulumi)
				}
				deployInImage(t, dir, cfg)
			}
		})
	}
}

// deployInImage deploys an example of each cloud with the image's clusterplane, in the image as
// its root, against the loopback clouds (tools/fakeclouds, on the host: the root changes, the
// network does not): what serve runs for a deploy needs nothing the image lacks.
func deployInImage(t *testing.T, dir string, cfg v1.Config) {
	t.Helper()
	work := t.TempDir()
	build := exec.Command("go", "build", "-o", work+"/", "./tools/fakeclouds")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build tools/fakeclouds: %v\n%s", err, out)
	}
	mountRuntimeFilesystems(t, dir)
	const token = "images-test-token"
	envFile := filepath.Join(work, "clouds.env")
	fakes := exec.Command(filepath.Join(work, "fakeclouds"), "-token", token, "-env", envFile, "-examples")
	fakes.Stderr = os.Stderr
	if err := fakes.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fakes.Process.Kill(); _ = fakes.Wait() })
	var urls []byte
	for i := 0; i < 100 && len(urls) == 0; i++ {
		time.Sleep(100 * time.Millisecond)
		urls, _ = os.ReadFile(envFile)
	}
	if len(urls) == 0 {
		t.Fatal("tools/fakeclouds wrote no URLs")
	}
	cfg.Env = append(append(cfg.Env, strings.Fields(string(urls))...),
		"DIGITALOCEAN_TOKEN="+token, "CIVO_TOKEN="+token,
		"PULUMI_BACKEND_URL=file://"+home+"/state", "PULUMI_CONFIG_PASSPHRASE=images-test")
	for _, example := range []string{"digitaloceankubernetescluster/minimal.yaml", "civokubernetescluster/minimal.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, "examples", example))
		if err != nil {
			t.Fatal(err)
		}
		manifest := home + "/" + strings.ReplaceAll(example, "/", "-")
		if err := os.WriteFile(filepath.Join(dir, manifest), data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := run(t, dir, cfg, bin+"/clusterplane", "up", manifest, "--yes", "--quiet")
		if err != nil {
			t.Errorf("clusterplane up %s in the image: %v\n%s", example, err, out)
		} else if !strings.Contains(out, "Stacks: 1 changed") {
			t.Errorf("clusterplane up %s in the image changed no stack:\n%s", example, out)
		}
	}
}

// mountRuntimeFilesystems gives the root at dir what a container runtime gives a container and an
// image does not hold: an /etc/hosts (the Automation API's CLI sends its events to
// localhost), a /proc (clusterplane finds its own binary there) and a /dev with the devices every
// process may open. Each is a filesystem of its own, never the host's bound: nothing
// removing the root can reach the host's files through it.
func mountRuntimeFilesystems(t *testing.T, dir string) {
	t.Helper()
	mount := func(name, fstype string, flags uintptr) string {
		target := filepath.Join(dir, name)
		if err := os.Mkdir(target, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount(fstype, target, fstype, flags, ""); err != nil {
			t.Skipf("mount a %s in the image's root, as a container runtime would: %v", name, err)
		}
		t.Cleanup(func() {
			if err := syscall.Unmount(target, syscall.MNT_DETACH); err != nil {
				t.Errorf("unmount %s: %v", target, err)
			}
		})
		return target
	}
	hosts := "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
	if err := os.WriteFile(filepath.Join(dir, "etc", "hosts"), []byte(hosts), 0o644); err != nil {
		t.Fatal(err)
	}
	mount("proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC)
	dev := mount("dev", "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC)
	for name, minor := range map[string]int{"null": 3, "zero": 5, "full": 7, "random": 8, "urandom": 9} {
		path := filepath.Join(dev, name)
		// The memory devices' major number is 1; 0666 as a runtime makes them (the umask aside).
		if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// checkConfig checks what an image's config says of it: a numeric non-root user, its binary as the
// entrypoint, a fixed creation time (so a digest is the same for the same binaries) and its labels.
func checkConfig(t *testing.T, image string, cf *v1.ConfigFile) {
	t.Helper()
	cfg := cf.Config
	if cfg.User != "65532:65532" {
		t.Errorf("the image runs as %q, want the numeric non-root 65532:65532", cfg.User)
	}
	if want := bin + "/" + image; len(cfg.Entrypoint) != 1 || cfg.Entrypoint[0] != want {
		t.Errorf("the entrypoint is %q, want %s", cfg.Entrypoint, want)
	}
	if cf.Created.Unix() != 0 {
		t.Errorf("the image was created at %s: a time that is not fixed changes the digest", cf.Created)
	}
	for _, label := range []string{"org.opencontainers.image.version", "org.opencontainers.image.source", "org.opencontainers.image.revision"} {
		if cfg.Labels[label] == "" {
			t.Errorf("the label %s is empty", label)
		}
	}
}

// A layout is tagged with the version the binaries were built with, as the release names it (the
// v included), so that the tag pushed and the one `skopeo copy oci:DIR:TAG` reads are one name; a
// version no registry takes as a tag is refused before anything is built.
func TestALayoutIsTaggedWithTheReleasesVersion(t *testing.T) {
	for _, tc := range []struct{ version, want string }{
		{"v0.1.0", "v0.1.0"},
		{"0.1.0", "v0.1.0"},
		{"v1.2.3-rc.1", "v1.2.3-rc.1"},
		{"v0.1", ""},
		{"v0.1.0+abc", ""},
		{"latest", ""},
	} {
		got, err := imageTag(tc.version)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("imageTag(%q) = %q, %v; want %q", tc.version, got, err, tc.want)
		}
	}
	dir := filepath.Join(t.TempDir(), "clusterplane")
	if _, err := writeLayout(dir, empty.Image, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	index, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, m := range manifest.Manifests {
		tags = append(tags, m.Annotations["org.opencontainers.image.ref.name"])
	}
	if len(tags) != 1 || tags[0] != "v1.2.3" {
		t.Errorf("the layout's images are tagged %q, want one, v1.2.3", tags)
	}
}

// make images runs images in tools/images: the folder it prints for each layout is absolute, so
// that a push copied from its output works from the repository's root (or anywhere).
func TestTheLinePrintedForALayoutNamesItFromAnyFolder(t *testing.T) {
	repo := t.TempDir()
	work := filepath.Join(repo, "tools", "images")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	digest := v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("ab", 32)}
	line, err := layoutLine("clusterplane", "v0.1.0", digest, "../../bin/images/clusterplane")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Split(line, "\t")
	want := []string{"clusterplane", "v0.1.0", digest.String(), filepath.Join(repo, "bin", "images", "clusterplane")}
	if len(fields) != len(want) {
		t.Fatalf("printed %q, want the fields %q", line, want)
	}
	for i := range want {
		if fields[i] != want[i] {
			t.Errorf("printed %q, want the fields %q", line, want)
			break
		}
	}
}

// chartField is a top-level field of a Chart.yaml, unquoted.
func chartField(t *testing.T, chart []byte, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `:\s*"?([^"\s]+)"?\s*$`).FindSubmatch(chart)
	if m == nil {
		t.Fatalf("the Chart.yaml has no %s", name)
	}
	return string(m[1])
}

// Each chart's image.tag defaults to its appVersion, which must be the tag `make images
// VERSION=...` gives the release's images (v0.1.0, v included): an install that leaves the tag
// out pulls what the release pushed, not a tag nobody pushed. The charts are released with the
// repository: a chart's version is the release's without the v.
func TestEachChartsDefaultTagIsTheTagTheReleasesImagesGet(t *testing.T) {
	for _, chart := range []string{"deploy/chart", "karpenter/chart"} {
		t.Run(chart, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(root, chart, "Chart.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			appVersion, version := chartField(t, data, "appVersion"), chartField(t, data, "version")
			if tag, err := imageTag(appVersion); err != nil || tag != appVersion {
				t.Errorf("appVersion %q is not the tag make images VERSION=%s gives its images (%q, %v)", appVersion, appVersion, tag, err)
			}
			if appVersion != "v"+version {
				t.Errorf("appVersion %q is not the release of the chart's version %s (v%s)", appVersion, version, version)
			}
			values, err := os.ReadFile(filepath.Join(root, chart, "values.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)^  tag: ""`).Match(values) {
				t.Errorf("%s/values.yaml sets image.tag: the default is the appVersion", chart)
			}
			templates, err := filepath.Glob(filepath.Join(root, chart, "templates", "*"))
			if err != nil {
				t.Fatal(err)
			}
			defaulted := false
			for _, f := range templates {
				text, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				defaulted = defaulted || regexp.MustCompile(`image\.tag \| default \S*Chart\.AppVersion`).Match(text)
			}
			if !defaulted {
				t.Errorf("no template of %s defaults image.tag to the chart's appVersion", chart)
			}
		})
	}
}
