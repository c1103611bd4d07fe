// Command sdkgen writes the clusterplane package's SDKs for Node.js, Python and Go from its Pulumi
// schema: `sdkgen SCHEMA DIR` replaces DIR/nodejs, DIR/python and DIR/go. It is a module of its own
// because Pulumi's code generators (pkg/v3) are served only up to v3.259.0, older than the SDK
// the main module pins; `make sdks` runs it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// tool names the generator in the generated files' headers.
const tool = "clusterplane-sdkgen"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sdkgen SCHEMA DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "sdkgen:", err)
		os.Exit(1)
	}
}

func run(schemaPath, dir string) error {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	languages := map[string]func(*schema.Package) (map[string][]byte, error){
		"nodejs": func(pkg *schema.Package) (map[string][]byte, error) {
			return nodejs.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
		},
		"python": func(pkg *schema.Package) (map[string][]byte, error) {
			return python.GeneratePackage(tool, pkg, nil, noPackages{})
		},
		"go": func(pkg *schema.Package) (map[string][]byte, error) {
			return gogen.GeneratePackage(tool, pkg, nil)
		},
	}
	names := make([]string, 0, len(languages))
	for name := range languages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		// Each generator records its own settings in the package, so each binds a fresh one.
		pkg, err := bind(data)
		if err != nil {
			return err
		}
		files, err := languages[name](pkg)
		if err != nil {
			return fmt.Errorf("generate the %s SDK: %w", name, err)
		}
		if err := write(filepath.Join(dir, name), files); err != nil {
			return err
		}
	}
	return nil
}

func bind(data []byte) (*schema.Package, error) {
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("bind the schema: %w", err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("bind the schema: %s", diags.Error())
	}
	return pkg, nil
}

// noPackages loads no other package: the schema refers to none (pulumi's own types are built in),
// and the generators must not look for plugins.
type noPackages struct{}

func (noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %s, which sdkgen does not load", name)
}

func (noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %s, which sdkgen does not load", d.Name)
}

func (noPackages) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("the schema refers to package %s, which sdkgen does not load", name)
}

func (noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, fmt.Errorf("the schema refers to package %s, which sdkgen does not load", d.Name)
}

// write replaces dir with files, so that a file the generator no longer writes goes too.
func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
