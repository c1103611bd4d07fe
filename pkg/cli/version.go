package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/release"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// VersionCommand is clusterplane's version: the release's, the commit it was built from and the
// SDKs it was built with (moved from cmd/clusterplane, which keeps to flags over libraries).
func VersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of clusterplane and of the SDKs it was built with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, ok := debug.ReadBuildInfo()
			if !ok {
				return errors.New("no build information in this binary")
			}
			out := cmd.OutOrStdout()
			// The release's version, as the plugin, its schema and the SDKs say it.
			version := release.Version()
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" {
					version += " " + s.Value
				}
			}
			fmt.Fprintf(out, "clusterplane %s (%s)\n", version, info.GoVersion)
			// Pulumi's SDK, each cloud's provider SDK (as its facts name it) and protovalidate.
			shown := map[string]bool{"github.com/pulumi/pulumi/sdk/v3": true, "buf.build/go/protovalidate": true}
			for _, c := range cloudlist.All() {
				shown[c.ProviderSDK()] = true
			}
			for _, dep := range info.Deps {
				if shown[dep.Path] {
					fmt.Fprintf(out, "  %s %s\n", dep.Path, dep.Version)
				}
			}
			return nil
		},
	}
}
