package autostack

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/ownedfs"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/release"
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
		dir, err := pluginDir()
		if err != nil {
			pluginOnce.err = err
			return
		}
		if err := link(exe, filepath.Join(dir, plugin.Name)); err != nil {
			pluginOnce.err = err
			return
		}
		pluginOnce.err = os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	return pluginOnce.err
}

// pluginDir is the folder the plugin's link goes in, first on PATH: the engine runs whatever
// pulumi-resource-* it finds there, with the cloud token in its environment, so it must be a
// folder no one else can have made or may write. In the user's cache folder it is
// clusterplane/plugin/<uid>, each of the three checked (ownedfs). Without a cache folder (HOME and
// XDG_CACHE_HOME unset: cron, systemd, env -i) it is never a fixed path in the shared temporary
// folder, which anyone could make first, but a fresh one made by MkdirTemp among the stacks'
// workspaces, named after this process so that the sweep removes it once the process has ended.
func pluginDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		root, err := workspacesRoot()
		if err != nil {
			return "", err
		}
		dir, err := os.MkdirTemp(root, fmt.Sprintf("%d-plugin-*", os.Getpid()))
		return dir, errors.Wrap(err, "create the plugin's folder")
	}
	dir, err := ownedfs.MkdirAll(cache, "clusterplane", "plugin", fmt.Sprint(os.Getuid()))
	return dir, errors.Wrap(err, "the plugin's folder, put first on PATH")
}

// installPlugin links exe into the Pulumi home's plugin cache as the clusterplane plugin of this
// build's version, where `pulumi plugin install resource clusterplane VERSION` would put it.
func installPlugin(exe string) error {
	plugins, err := workspace.GetPluginDir()
	if err != nil {
		return errors.Wrap(err, "find the Pulumi home's plugin folder")
	}
	// The engine runs the plugin from here: the plugins folder and the version's folder in it
	// must be this user's alone, as the folder on PATH must.
	dir, err := ownedfs.MkdirAll(filepath.Dir(plugins), filepath.Base(plugins), "resource-clusterplane-v"+release.Version())
	if err != nil {
		return errors.Wrap(err, "the Pulumi home's plugin folder")
	}
	return link(exe, filepath.Join(dir, plugin.Name))
}

// link makes path, in a folder the caller has checked is this user's own, a symbolic link to exe
// unless it is one already, replacing it at once so that commands running in parallel never see
// it missing.
func link(exe, path string) error {
	if target, err := os.Readlink(path); err == nil && target == exe {
		return nil
	}
	tmp := fmt.Sprintf("%s.%d", path, os.Getpid())
	if err := os.Symlink(exe, tmp); err != nil {
		return errors.Wrap(err, "link clusterplane as the plugin")
	}
	return errors.Wrap(os.Rename(tmp, path), "link clusterplane as the plugin")
}
