// Kubernetes clusters and node pools on Civo and DigitalOcean, checked before any cloud call.
package clusterplane
