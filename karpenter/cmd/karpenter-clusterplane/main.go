// Command karpenter-clusterplane runs Karpenter's operator with clusterplane's provider for the
// managed node pools of the clouds in karpenter/pkg/clouds' table: Karpenter core's controllers (provisioning,
// disruption, the NodeClaims' lifecycle, its metrics and health probes, its structured logs) and
// the provider's (the NodeClasses' and garbage collection). karpenter/README.md lists its
// settings.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/awslabs/operatorpkg/controller"
	"github.com/clusterplane/clusterplane/karpenter/pkg/cloudprovider"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/controllers/nodeclass"
	"github.com/clusterplane/clusterplane/karpenter/pkg/metrics"
	"github.com/clusterplane/clusterplane/karpenter/pkg/operator"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instance"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instancetype"
	"sigs.k8s.io/controller-runtime/pkg/log"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	coremetrics "sigs.k8s.io/karpenter/pkg/cloudprovider/metrics"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/overlay"
	"sigs.k8s.io/karpenter/pkg/controllers"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	coreoperator "sigs.k8s.io/karpenter/pkg/operator"
)

// newOperator is Karpenter's operator. Karpenter stops on a bad setting (the provider's own
// included) with a panic of a message (lo.Must): that is news for the user, not a crash, so it is
// printed as a message; any other panic stays one.
func newOperator() (context.Context, *coreoperator.Operator) {
	defer func() {
		if r := recover(); r != nil {
			msg, ok := r.(string)
			if !ok {
				panic(r)
			}
			fmt.Fprintln(os.Stderr, "karpenter-clusterplane:", msg)
			os.Exit(2)
		}
	}()
	return coreoperator.NewOperator()
}

func main() {
	ctx, op := newOperator()
	opts := operator.FromContext(ctx)
	cs, err := operator.Clouds(os.Getenv)
	if err != nil {
		log.FromContext(ctx).Error(err, "no cloud to serve")
		os.Exit(1)
	}
	// The provider's own metrics, on the registry Karpenter core's are on and its /metrics serves.
	own := metrics.New(crmetrics.Registry)
	defer own.ObserveClouds()()
	is := instance.New()
	is.BatchWindow, is.Batched = opts.BatchWindow, own.Batch
	provider := cloudprovider.New(op.GetClient(), own.Count(cs), instancetype.New(opts.SizesMaxAge), is)
	// Karpenter's own cloud provider metrics (each method's duration and errors), then its
	// NodeOverlays, as Karpenter's AWS provider stacks them.
	measured := coremetrics.Decorate(provider)
	decorated := overlay.Decorate(measured, op.GetClient(), op.InstanceTypeStore)
	cluster := state.NewCluster(op.Clock, op.GetClient(), decorated)
	core := controllers.NewControllers(ctx, op.Manager, op.Clock, op.GetClient(), op.EventRecorder,
		decorated, measured, cluster, op.InstanceTypeStore)
	// A NodeClass controller per cloud, whether or not it has a token: a NodeClass of a cloud
	// without one is told so in its conditions.
	var mine []controller.Controller
	for _, d := range clouds.Drivers() {
		mine = append(mine, &nodeclass.Controller{Kube: op.GetClient(), Provider: provider, Kind: d.Kind, Readiness: own.NodeClass})
	}
	gc := cloudprovider.NewGarbageCollector(provider, opts.OrphanGrace, opts.OrphanGrace/10)
	gc.Collected = own.Collected
	mine = append(mine, gc)
	op.WithControllers(ctx, core...).WithControllers(ctx, mine...).Start(ctx)
}
