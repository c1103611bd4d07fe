package entry_test

import (
	"strings"
	"testing"

	dcv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"google.golang.org/protobuf/proto"
)

// dc is a typed edit of the kind's spec.
var dc = diffpairs.Spec[*dcv1.DigitalOceanKubernetesClusterSpec]

// Every row of the kind's effects table has an OLD/NEW pair in testdata/diff-pairs.yaml, which
// diff must tell right.
// Promise: diff-exit-codes
// Promise: diff-effects
// Promise: diff-protected-replacement-refused
// Promise: pitfalls-clusters-protected-by-default
// Promise: pitfalls-removals-refused-with-what-to-write
// Promise: pitfalls-ha-turned-on-later-not-off
// Promise: pitfalls-one-minor-from-latest-patch
// Promise: pitfalls-ha-never-off
// Promise: effect-digitalocean-cluster-metadata-env
// Promise: effect-digitalocean-cluster-metadata-name
// Promise: effect-digitalocean-cluster-spec-amdgpudevicemetricsexporterplugin
// Promise: effect-digitalocean-cluster-spec-amdgpudeviceplugin
// Promise: effect-digitalocean-cluster-spec-clustersubnet
// Promise: effect-digitalocean-cluster-spec-defaultnodepool-labels
// Promise: effect-digitalocean-cluster-spec-defaultnodepool-size
// Promise: effect-digitalocean-cluster-spec-disablesurgeupgrade
// Promise: effect-digitalocean-cluster-spec-highlyavailable
// Promise: effect-digitalocean-cluster-spec-kubernetesversion
// Promise: effect-digitalocean-cluster-spec-nvidiagpudeviceplugin
// Promise: effect-digitalocean-cluster-spec-rdmashareddeviceplugin
// Promise: effect-digitalocean-cluster-spec-region
// Promise: effect-digitalocean-cluster-spec-routingagent
// Promise: effect-digitalocean-cluster-spec-servicesubnet
// Promise: effect-digitalocean-cluster-spec-vpc
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), diffpairs.Read(t, "../testdata/diff-pairs.yaml"))
}

// Promise: pitfalls-vpc-written-back-asks-the-provider
func TestAVPCSetForTheFirstTimeIsRefusedOfflineSayingPreviewAsksTheProvider(t *testing.T) {
	k := diffpairs.Of(entry.Kind())
	old := k.Load(t)
	written := proto.Clone(old)
	dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = sharedv1.StringValue("vpc-1") })(written)
	moved := proto.Clone(written)
	dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = sharedv1.StringValue("vpc-2") })(moved)
	tests := []struct {
		name     string
		from, to proto.Message
		says     bool
	}{
		{"unset, then written", old, written, true},
		{"one VPC, then another", written, moved, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := diff.Compare(k.Effects, tt.from, tt.to)
			if err != nil || len(r.Changes) != 1 || r.Changes[0].Effect != effects.Refused {
				t.Fatalf("%+v %v, want one refused change", r, err)
			}
			if got := strings.Contains(r.Changes[0].Reason, "preview and up, which ask it, deploy it"); got != tt.says {
				t.Errorf("the reason says preview asks the provider: %t, want %t: %s", got, tt.says, r.Changes[0].Reason)
			}
		})
	}
}
