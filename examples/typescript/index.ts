// A DigitalOcean cluster with a GPU node pool, as clusterplane components: the same resources as
// examples/pulumi-yaml, in TypeScript. `make check-sdks` type-checks this file against sdk/nodejs.
import * as pulumi from "@pulumi/pulumi";
import * as clusterplane from "@clusterplane/clusterplane";

const config = new pulumi.Config();

const platform = new clusterplane.digitalocean.KubernetesCluster("platform", {
    metadata: { name: "platform", org: "acme", env: "prod" },
    clusterName: "platform-prod",
    region: "fra1",
    kubernetesVersion: "1.31",
    autoUpgrade: true,
    highlyAvailable: true,
    defaultNodePool: { size: "s-4vcpu-8gb", nodeCount: 3 },
    maintenanceWindow: { day: "sunday", startTime: "03:00" },
    // Without it the component falls back to DIGITALOCEAN_TOKEN.
    providerConfig: { apiToken: config.getSecret("digitaloceanToken") },
});

// The pool joins the cluster by its id, an output: it waits for the cluster.
const gpu = new clusterplane.digitalocean.KubernetesNodePool("gpu", {
    metadata: { name: "platform-gpu", org: "acme", env: "prod" },
    nodePoolName: "gpu",
    cluster: { value: platform.clusterId },
    size: "gpu-h100x1-80gb",
    autoScale: true,
    minNodes: 0,
    maxNodes: 2,
    labels: { workload: "gpu" },
    taints: [{ key: "nvidia.com/gpu", value: "true", effect: "NoSchedule" }],
});

export const clusterId = platform.clusterId;
export const kubeconfig = platform.kubeconfig; // a secret
export const gpuPoolId = gpu.nodePoolId;
