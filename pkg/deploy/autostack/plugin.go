package autostack

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/pulumi/plugin"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/env"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
)

var pluginOnce struct {
	sync.Once
	err error
}

// providePlugin makes exe, a binary that serves the clusterplane plugin when started under its
// name, the plugin for the engine that deploys Civo node pools (and for the module's check that
// the plugin is there): a link, remade when it points elsewhere, first on PATH in clusterplane's
// cache folder, or, when PULUMI_IGNORE_AMBIENT_PLUGINS keeps the engine from looking on PATH, in
// the Pulumi home's plugin cache. Once per process: PATH is this process's.
func providePlugin(exe string) error {
	pluginOnce.Do(func() {
		if env.IgnoreAmbientPlugins.Value() {
			pluginOnce.err = installPlugin(exe)
			return
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "clusterplane", "plugin", fmt.Sprint(os.Getuid()))
		if err := link(exe, filepath.Join(dir, plugin.Name)); err != nil {
			pluginOnce.err = err
			return
		}
		pluginOnce.err = os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	return pluginOnce.err
}

// installPlugin links exe into the Pulumi home's plugin cache as the clusterplane plugin of this
// build's version, where `pulumi plugin install resource clusterplane VERSION` would put it.
func installPlugin(exe string) error {
	plugins, err := workspace.GetPluginDir()
	if err != nil {
		return errors.Wrap(err, "find the Pulumi home's plugin folder")
	}
	return link(exe, filepath.Join(plugins, "resource-clusterplane-v"+plugin.Version(), plugin.Name))
}

// link makes path a symbolic link to exe unless it is one already, replacing it at once so that
// commands running in parallel never see it missing.
func link(exe, path string) error {
	if target, err := os.Readlink(path); err == nil && target == exe {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return errors.Wrap(err, "create the plugin's folder")
	}
	tmp := fmt.Sprintf("%s.%d", path, os.Getpid())
	if err := os.Symlink(exe, tmp); err != nil {
		return errors.Wrap(err, "link clusterplane as the plugin")
	}
	return errors.Wrap(os.Rename(tmp, path), "link clusterplane as the plugin")
}
