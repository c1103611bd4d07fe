package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/provider/civoprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumischema"
	"github.com/clusterplane/clusterplane/registry"
	"github.com/pkg/errors"
)

// servePlugin is clusterplane started by the engine as pulumi-resource-clusterplane (see
// providePlugin): it serves the plugin, so that deploying needs no other binary.
func servePlugin() {
	schema, err := pulumischema.Generate(pulumischema.Components())
	if err == nil {
		err = registry.ServePlugin(schema)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, civoprovider.PluginName+" (clusterplane):", err)
		os.Exit(1)
	}
}

var pluginOnce struct {
	sync.Once
	err error
}

// providePlugin puts this binary on PATH under the plugin's name, first, for the engine that
// deploys Civo node pools (and for the module's check that the plugin is there): a link in
// clusterplane's cache folder, remade when it points elsewhere.
func providePlugin() error {
	pluginOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			pluginOnce.err = errors.Wrap(err, "find the clusterplane binary")
			return
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "clusterplane", "plugin", fmt.Sprint(os.Getuid()))
		link := filepath.Join(dir, civoprovider.PluginName)
		if target, err := os.Readlink(link); err != nil || target != exe {
			_ = os.MkdirAll(dir, 0o700)
			tmp := fmt.Sprintf("%s.%d", link, os.Getpid())
			if err := os.Symlink(exe, tmp); err != nil {
				pluginOnce.err = errors.Wrap(err, "link clusterplane as the plugin")
				return
			}
			if err := os.Rename(tmp, link); err != nil {
				pluginOnce.err = errors.Wrap(err, "link clusterplane as the plugin")
				return
			}
		}
		pluginOnce.err = os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	return pluginOnce.err
}
