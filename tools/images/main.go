// Command images assembles the two images clusterplane ships, as OCI layouts, from binaries built
// on this machine and without a container runtime (go-containerregistry writes the layouts):
//
//   - clusterplane: `clusterplane serve` and everything it runs to deploy. The stacks' programs
//     run inside clusterplane (inline programs), and clusterplane serves its own plugin, so beside
//     it the image holds only the Pulumi CLI and each cloud's provider plugin, on
//     PATH, where the engine finds them (no language host: an inline program needs none).
//   - karpenter-clusterplane: the Karpenter provider, a static binary.
//
// No shell and no package manager: a layer of files from the host stands in for a base image (the
// user, /tmp, its home, the CA certificates and the loader and C library the engine's binaries are
// linked against). Every file's time and owner is fixed, so the same binaries give the same digest.
// `make images` builds the binaries and runs it.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/semver"
)

func main() {
	out := flag.String("out", "bin/images", "the folder each image's OCI layout is written into, one folder per image")
	engine := flag.String("engine", ".engine", "the engine make engine builds: bin/pulumi and plugins/pulumi-resource-*")
	clusterplane := flag.String("clusterplane", "", "the clusterplane binary (CGO_ENABLED=0)")
	karpenter := flag.String("karpenter", "", "the karpenter-clusterplane binary (CGO_ENABLED=0)")
	version := flag.String("version", "v0.0.0", "the version the binaries were built with (make images VERSION=v0.1.0): each layout's tag, and its labels' version without the v")
	revision := flag.String("revision", "", "the commit the binaries were built from")
	source := flag.String("source", "https://github.com/clusterplane/clusterplane", "the repository, for the labels")
	flag.Parse()
	if *clusterplane == "" || *karpenter == "" {
		fmt.Fprintln(os.Stderr, "usage: images -clusterplane BIN -karpenter BIN [-engine .engine] [-out bin/images] [-version v0.1.0] [-revision SHA]")
		os.Exit(2)
	}
	tag, err := imageTag(*version)
	if err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(2)
	}
	labels := func(title, description string) map[string]string {
		return map[string]string{
			"org.opencontainers.image.title":       title,
			"org.opencontainers.image.description": description,
			"org.opencontainers.image.version":     strings.TrimPrefix(tag, "v"),
			"org.opencontainers.image.revision":    *revision,
			"org.opencontainers.image.source":      *source,
		}
	}
	serve, err := serveSpec(*clusterplane, *engine, labels("clusterplane",
		"clusterplane serve with the Pulumi CLI and the provider plugins it deploys with"))
	if err != nil {
		fail(err)
	}
	karp, err := karpenterSpec(*karpenter, labels("karpenter-clusterplane",
		"Karpenter with clusterplane's provider for the clouds' managed node pools"))
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp(filepath.Dir(filepath.Clean(*out)), ".images-*")
	if err != nil {
		fail(fmt.Errorf("a folder for the layers: %w", err))
	}
	defer os.RemoveAll(work)
	for _, s := range []spec{serve, karp} {
		img, err := build(work, s)
		if err != nil {
			fail(err)
		}
		dir := filepath.Join(*out, s.name)
		digest, err := writeLayout(dir, img, tag)
		if err != nil {
			fail(err)
		}
		line, err := layoutLine(s.name, tag, digest, dir)
		if err != nil {
			fail(err)
		}
		fmt.Println(line)
	}
}

// imageTag is the tag a layout gets for the version the binaries were built with: the release's
// own name for it, a semver tag such as v0.1.0 (make release VERSION=v0.1.0), the v added when
// the version comes without one. That is the tag to push the image under, and the one each
// chart's image.tag defaults to (its appVersion). A build's metadata (+...) is refused: no
// registry takes a + in a tag.
func imageTag(version string) (string, error) {
	v := "v" + strings.TrimPrefix(version, "v")
	if !semver.IsValid(v) || semver.Canonical(v) != v {
		return "", fmt.Errorf("-version %q is not a semver tag such as v0.1.0 (without +build metadata)", version)
	}
	return v, nil
}

// layoutLine is what images prints of a layout it wrote: the image's name, its tag, its digest
// and the layout's folder as an absolute path, which a push names from wherever it runs (make
// runs images in tools/images, so the folder it is given is relative to there).
func layoutLine(name, tag string, digest fmt.Stringer, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("the layout %s: %w", dir, err)
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s", name, tag, digest, abs), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "images:", err)
	os.Exit(1)
}

// serveSpec is the clusterplane image: the base layer, the engine's (which changes less often
// than clusterplane), then clusterplane. The labels say the engine's versions, as its binaries do.
func serveSpec(clusterplane, engine string, labels map[string]string) (spec, error) {
	pulumi := filepath.Join(engine, "bin", "pulumi")
	v, err := output(pulumi, "version")
	if err != nil {
		return spec{}, err
	}
	labels["io.clusterplane.pulumi.version"] = strings.TrimPrefix(v, "v")
	binaries := []string{clusterplane, pulumi}
	engineLayer := []entry{hostFile(bin+"/pulumi", pulumi, 0o755)}
	// The provider plugins are every one make engine put in the engine's plugins folder, one per
	// cloud driver (tools/engine/providers.sh).
	plugins, err := filepath.Glob(filepath.Join(engine, "plugins", "pulumi-resource-*"))
	if err != nil || len(plugins) == 0 {
		return spec{}, fmt.Errorf("no provider plugin in %s/plugins (make engine builds them): %v", engine, err)
	}
	for _, p := range plugins {
		name := strings.TrimPrefix(filepath.Base(p), "pulumi-resource-")
		v, err := output(p, "-version")
		if err != nil {
			return spec{}, err
		}
		labels["io.clusterplane.plugin."+name+".version"] = v
		binaries = append(binaries, p)
		engineLayer = append(engineLayer, hostFile(bin+"/pulumi-resource-"+name, p, 0o755))
	}
	baseLayer, err := base(binaries...)
	if err != nil {
		return spec{}, err
	}
	return spec{
		name:       "clusterplane",
		layers:     [][]entry{baseLayer, engineLayer, {hostFile(bin+"/clusterplane", clusterplane, 0o755)}},
		entrypoint: []string{bin + "/clusterplane"},
		cmd:        []string{"serve"},
		env: []string{
			"PATH=" + bin,
			"HOME=" + home,
			"PULUMI_SKIP_UPDATE_CHECK=true",
			// The plugins are in the image: a stack asking for another version fails, saying
			// which, rather than downloading one at deploy time.
			"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true",
		},
		labels: labels,
	}, nil
}

// karpenterSpec is the Karpenter provider's image: the base layer and the binary.
func karpenterSpec(karpenter string, labels map[string]string) (spec, error) {
	baseLayer, err := base(karpenter)
	if err != nil {
		return spec{}, err
	}
	return spec{
		name:       "karpenter-clusterplane",
		layers:     [][]entry{baseLayer, {hostFile(bin+"/karpenter-clusterplane", karpenter, 0o755)}},
		entrypoint: []string{bin + "/karpenter-clusterplane"},
		env:        []string{"PATH=" + bin, "HOME=" + home},
		labels:     labels,
	}, nil
}

// output is what the binary prints for args, trimmed.
func output(binary string, args ...string) (string, error) {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "PULUMI_SKIP_UPDATE_CHECK=true")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("run %s %s (make engine builds it): %w", binary, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
