package component_test

import (
	"reflect"
	"testing"

	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func TestPoolSizeSendsACountOnlyWhenSetAndBoundsOnlyWhenThePoolAutoscales(t *testing.T) {
	tests := []struct {
		name      string
		spec      *dopoolv1.DigitalOceanKubernetesNodePoolSpec
		wantCount pulumi.IntPtrInput
		wantAuto  pulumi.BoolPtrInput
		wantMin   pulumi.IntPtrInput
		wantMax   pulumi.IntPtrInput
	}{
		{name: "a fixed-size pool sends its count and no bounds",
			spec:      &dopoolv1.DigitalOceanKubernetesNodePoolSpec{NodeCount: 3, MinNodes: 1, MaxNodes: 5},
			wantCount: pulumi.Int(3)},
		{name: "an autoscaled pool sends autoscaling and both bounds",
			spec:      &dopoolv1.DigitalOceanKubernetesNodePoolSpec{NodeCount: 2, AutoScale: true, MinNodes: 1, MaxNodes: 5},
			wantCount: pulumi.Int(2), wantAuto: pulumi.Bool(true), wantMin: pulumi.Int(1), wantMax: pulumi.Int(5)},
		{name: "an autoscaled pool without a count leaves the count unset",
			spec:     &dopoolv1.DigitalOceanKubernetesNodePoolSpec{AutoScale: true, MinNodes: 0, MaxNodes: 4},
			wantAuto: pulumi.Bool(true), wantMin: pulumi.Int(0), wantMax: pulumi.Int(4)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			count, auto, lo, hi := component.PoolSize(tc.spec)
			got := []any{count, auto, lo, hi}
			want := []any{tc.wantCount, tc.wantAuto, tc.wantMin, tc.wantMax}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PoolSize = %v, want %v", got, want)
			}
		})
	}
}

func TestTaintsMakesOneArgumentATaintAndAnEmptyListForNone(t *testing.T) {
	type taint struct{ key, value, effect string }
	arg := func(key, value, effect string) taint { return taint{key, value, effect} }
	tests := []struct {
		name   string
		taints []*sharedv1.Taint
		want   []taint
	}{
		{name: "each taint becomes an argument of its key, value and effect name",
			taints: []*sharedv1.Taint{
				{Key: "gpu", Value: "true", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "spot", Effect: sharedv1.TaintEffect_PreferNoSchedule}},
			want: []taint{{"gpu", "true", "NoSchedule"}, {"spot", "", "PreferNoSchedule"}}},
		{name: "no taints are an empty list, not nil, so that the provider clears old ones", want: []taint{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := component.Taints[[]taint](tc.taints, arg)
			if got == nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Taints = %#v, want %#v", got, tc.want)
			}
		})
	}
}
