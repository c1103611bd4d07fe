package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user both images run as: not root, numeric so that Kubernetes' runAsNonRoot can check it
// without reading /etc/passwd (65532 is distroless's "nonroot").
const (
	uid  = 65532
	user = "clusterplane"
	home = "/home/clusterplane"
	bin  = "/usr/local/bin"
)

// epoch is every file's and the config's time: the same inputs give the same digest.
var epoch = time.Unix(0, 0).UTC()

// An entry is one file, folder or link of a layer. A file's content is the host file src, or data.
type entry struct {
	path   string // absolute, in the image
	src    string
	data   []byte
	mode   int64
	owner  int
	dir    bool
	target string // a symbolic link's
}

func hostFile(imagePath, src string, mode int64) entry {
	return entry{path: imagePath, src: src, mode: mode}
}

// spec is one image: its layers, lowest first, and its config.
type spec struct {
	name       string
	layers     [][]entry
	entrypoint []string
	cmd        []string
	env        []string
	labels     map[string]string
}

// base is the layer both images start from, in place of a distribution's: the user in
// /etc/passwd and /etc/group (for the programs that look it up), its home and /tmp, the host's
// CA certificates when it has them (the clouds' APIs are HTTPS), and the dynamic loader and
// libraries the binaries given need, copied from the host (static binaries need none).
func base(binaries ...string) ([]entry, error) {
	entries := []entry{
		{path: "/etc/passwd", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", user, uid, uid, user, home))},
		{path: "/etc/group", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:\n%s:x:%d:\n", user, uid))},
		{path: "/tmp", dir: true, mode: 0o1777},
		{path: home, dir: true, mode: 0o700, owner: uid},
	}
	const certs = "/etc/ssl/certs/ca-certificates.crt"
	if _, err := os.Stat(certs); err == nil {
		entries = append(entries, hostFile(certs, certs, 0o644))
	}
	libs, err := sharedLibraries(binaries)
	if err != nil {
		return nil, err
	}
	return append(entries, libs...), nil
}

// libraryDirs are where the host's dynamic loader finds libraries, the multiarch folder first
// (Debian's layout): a library goes into the image at the path it has on the host.
func libraryDirs() []string {
	triple := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}[runtime.GOARCH]
	return []string{"/lib/" + triple, "/usr/lib/" + triple, "/lib64", "/usr/lib64", "/lib", "/usr/lib"}
}

// sharedLibraries are the loader and the libraries the ELF binaries need, and those the
// libraries need in turn, each as a file at the path the loader looks for it.
func sharedLibraries(binaries []string) ([]entry, error) {
	seen := map[string]bool{}
	var out []entry
	queue := slices.Clone(binaries)
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		f, err := elf.Open(file)
		if err != nil {
			return nil, fmt.Errorf("read the binary %s: %w", file, err)
		}
		var needed []string
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				data, err := io.ReadAll(p.Open())
				if err != nil {
					f.Close()
					return nil, fmt.Errorf("read the loader %s names: %w", file, err)
				}
				needed = append(needed, strings.TrimRight(string(data), "\x00"))
			}
		}
		libs, err := f.ImportedLibraries()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read the libraries %s needs: %w", file, err)
		}
		for _, lib := range libs {
			found := ""
			for _, dir := range libraryDirs() {
				if _, err := os.Stat(filepath.Join(dir, lib)); err == nil {
					found = path.Join(dir, lib)
					break
				}
			}
			if found == "" {
				return nil, fmt.Errorf("%s needs %s, which is in none of %v", file, lib, libraryDirs())
			}
			needed = append(needed, found)
		}
		for _, p := range needed {
			if seen[p] {
				continue
			}
			seen[p] = true
			// The loader is usually a link: the image gets the file it points at, under the name.
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil, fmt.Errorf("find %s, which %s needs: %w", p, file, err)
			}
			out = append(out, hostFile(p, real, 0o755))
			queue = append(queue, real)
		}
	}
	return out, nil
}

// layer writes entries as one tar file in dir, sorted, every folder above them made, with
// fixed times and owners: the same entries give the same bytes.
func layer(dir string, entries []entry) (v1.Layer, error) {
	all := map[string]entry{}
	for _, e := range entries {
		all[e.path] = e
		for d := path.Dir(e.path); d != "/"; d = path.Dir(d) {
			if _, ok := all[d]; !ok {
				all[d] = entry{path: d, dir: true, mode: 0o755}
			}
		}
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	f, err := os.CreateTemp(dir, "layer-*.tar")
	if err != nil {
		return nil, fmt.Errorf("create a layer: %w", err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	for _, p := range paths {
		if err := writeEntry(tw, all[p]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("write the layer %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write the layer %s: %w", f.Name(), err)
	}
	l, err := tarball.LayerFromFile(f.Name(), tarball.WithMediaType(types.OCILayer),
		tarball.WithCompressionLevel(gzip.BestSpeed))
	if err != nil {
		return nil, fmt.Errorf("read the layer %s: %w", f.Name(), err)
	}
	return l, nil
}

func writeEntry(tw *tar.Writer, e entry) error {
	h := &tar.Header{Name: strings.TrimPrefix(e.path, "/"), Mode: e.mode, Uid: e.owner, Gid: e.owner,
		ModTime: epoch, Format: tar.FormatPAX}
	var body io.Reader
	switch {
	case e.dir:
		h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
	case e.target != "":
		h.Typeflag, h.Linkname = tar.TypeSymlink, e.target
	case e.src != "":
		f, err := os.Open(e.src)
		if err != nil {
			return fmt.Errorf("read %s for %s: %w", e.src, e.path, err)
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return fmt.Errorf("read %s for %s: %w", e.src, e.path, err)
		}
		h.Typeflag, h.Size, body = tar.TypeReg, info.Size(), f
	default:
		h.Typeflag, h.Size, body = tar.TypeReg, int64(len(e.data)), bytes.NewReader(e.data)
	}
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("write %s: %w", e.path, err)
	}
	if body != nil {
		if _, err := io.Copy(tw, body); err != nil {
			return fmt.Errorf("write %s: %w", e.path, err)
		}
	}
	return nil
}

// build assembles s on an empty image, its layers' tar files kept in work until written.
func build(work string, s spec) (v1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	for i, entries := range s.layers {
		l, err := layer(work, entries)
		if err != nil {
			return nil, fmt.Errorf("%s's layer %d: %w", s.name, i+1, err)
		}
		if img, err = mutate.AppendLayers(img, l); err != nil {
			return nil, fmt.Errorf("%s's layer %d: %w", s.name, i+1, err)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s's config: %w", s.name, err)
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = runtime.GOARCH, "linux"
	cf.Created = v1.Time{Time: epoch}
	cf.Config.Entrypoint = s.entrypoint
	cf.Config.Cmd = s.cmd
	cf.Config.Env = s.env
	cf.Config.User = fmt.Sprintf("%d:%d", uid, uid)
	cf.Config.WorkingDir = home
	cf.Config.Labels = s.labels
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("%s's config: %w", s.name, err)
	}
	return img, nil
}

// writeLayout writes img as the only image of the OCI layout dir, replacing what was there, tagged
// tag (its org.opencontainers.image.ref.name, the name skopeo's oci:DIR:TAG reads).
func writeLayout(dir string, img v1.Image, tag string) (v1.Hash, error) {
	if err := os.RemoveAll(dir); err != nil {
		return v1.Hash{}, fmt.Errorf("remove the old layout %s: %w", dir, err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("write the layout %s: %w", dir, err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag})); err != nil {
		return v1.Hash{}, fmt.Errorf("write the image to %s: %w", dir, err)
	}
	d, err := img.Digest()
	if err != nil {
		return v1.Hash{}, fmt.Errorf("the digest of %s: %w", dir, err)
	}
	return d, nil
}
