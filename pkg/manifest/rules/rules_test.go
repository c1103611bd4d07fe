package rules_test

import (
	"slices"
	"strings"
	"testing"

	civocluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	docluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func field(m proto.Message, name string) protoreflect.FieldDescriptor {
	return m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
}

func TestRejectsZeroAsksTheValidatorWhetherAFieldMayBeLeftOut(t *testing.T) {
	tests := []struct {
		m     proto.Message
		field string
		want  bool
	}{
		{&docluster.DigitalOceanKubernetesCluster{}, "api_version", true},                // a const
		{&docluster.DigitalOceanKubernetesCluster{}, "spec", true},                       // required message
		{&docluster.DigitalOceanKubernetesCluster{}, "status", false},                    // optional message
		{&docluster.DigitalOceanKubernetesClusterSpec{}, "region", true},                 // required enum
		{&docluster.DigitalOceanKubernetesClusterSpec{}, "cluster_subnet", false},        // ignored when empty
		{&docluster.DigitalOceanKubernetesClusterDefaultNodePool{}, "node_count", false}, // only a cross-field rule
		{&civopool.CivoKubernetesNodePoolSpec{}, "node_count", true},                     // gte 1
		{&civocluster.CivoKubernetesClusterSpec{}, "cluster_type", false},                // defined_only allows unset
		{&sharedv1.Taint{}, "value", false},                                              // pattern that allows ""
	}
	for _, tt := range tests {
		fd := field(tt.m, tt.field)
		got, err := rules.RejectsZero(fd)
		if err != nil || got != tt.want {
			t.Errorf("RejectsZero(%s) = %t, %v; want %t", fd.FullName(), got, err, tt.want)
		}
	}
}

func TestWordsSayEveryKindOfRule(t *testing.T) {
	tests := []struct {
		m     proto.Message
		field string
		want  []string
	}{
		{&docluster.DigitalOceanKubernetesClusterSpec{}, "cluster_name", []string{
			"required: must be set and not empty", "at most 63 characters", "matches the regular expression ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}},
		{&docluster.DigitalOceanKubernetesClusterSpec{}, "region", []string{
			"required: must be set and not empty", "at most 8 characters", "matches the regular expression ^[a-z]{2,5}[0-9]{1,2}$"}},
		{&civocluster.CivoKubernetesClusterSpec{}, "cluster_type", []string{"one of: k3s, talos"}},
		{&docluster.DigitalOceanKubernetesClusterSpec{}, "cluster_subnet", []string{
			"may be left empty; the rules below apply only when it is set", "an IPv4 CIDR with its host bits zero, e.g. 10.244.0.0/16"}},
		{&docluster.DigitalOceanKubernetesClusterSpec{}, "tags", []string{"no item appears twice",
			"each item: matches the regular expression ^[a-zA-Z0-9:\\-_]{1,255}$",
			"each item: tags must not be k8s or start with k8s: or terraform:, which the provider manages"}},
		{&docluster.DigitalOceanKubernetesClusterAutoscaler{}, "scale_down_utilization_threshold", []string{"from 0 to 1"}},
		{&docluster.DigitalOceanKubernetesClusterDefaultNodePool{}, "min_nodes", []string{
			"from 0 to 5000", "min_nodes must be at least 1 when auto_scale is true"}},
		{&civocluster.CivoKubernetesClusterSpec{}, "kubernetes_version", []string{
			"required: must be set and not empty", "write the k3s suffix with a dash, e.g. 1.30.5-k3s1, not 1.30.5+k3s1",
			"kubernetes_version must look like 1.30.5-k3s1 or v1.30.5-k3s1 for a k3s cluster (cluster_type k3s or unset): numbers without leading zeros and one digit after k3s",
			"kubernetes_version must look like talos-v1.5.0 for a talos cluster (cluster_type talos): numbers without leading zeros"}},
		{&sharedv1.StringValueOrRef{}, "value", []string{"exactly one of value, valueFrom is set", "at least 1 character"}},
		{&docluster.DigitalOceanKubernetesClusterDefaultNodePool{}, "labels", []string{
			"each key: at most 317 characters", "each value: matches the regular expression ^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$",
			"each key: the DNS prefix before / of a label key must be at most 253 characters"}},
	}
	for _, tt := range tests {
		fd := field(tt.m, tt.field)
		got := rules.Words(fd)
		for _, want := range tt.want {
			if !slices.Contains(got, want) {
				t.Errorf("Words(%s) lacks %q:\n%s", fd.FullName(), want, strings.Join(got, "\n"))
			}
		}
	}
}

func TestEnumValuesLeaveOutTheUnsetValue(t *testing.T) {
	var names []string
	for _, v := range rules.EnumValues(sharedv1.TaintEffect(0).Descriptor()) {
		names = append(names, string(v.Name()))
	}
	if want := []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}; !slices.Equal(names, want) {
		t.Errorf("EnumValues(TaintEffect) = %v, want %v", names, want)
	}
}

func TestCrossFieldFindsTheMessageRulesNamedAfterAField(t *testing.T) {
	var ids []string
	for _, r := range rules.CrossField(field(&civopool.CivoKubernetesNodePoolSpec{}, "min_nodes")) {
		ids = append(ids, r.GetId())
	}
	if want := []string{"min_nodes.at_least_one", "min_nodes.at_most_node_count", "min_nodes.needs_auto_scale"}; !slices.Equal(ids, want) {
		t.Errorf("CrossField(min_nodes) = %v, want %v", ids, want)
	}
}
