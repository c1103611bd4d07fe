package fakecloud

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"
)

// Credentials are a made-up cluster's, in PEM, so that a kubeconfig holding them parses as a real
// one does (client-go reads the certificates before it dials): a self-signed certificate
// authority, and a client certificate it signed with its key. Nothing serves them.
type Credentials struct {
	CA, ClientCert, ClientKey []byte
}

// NewCredentials makes a cluster's made-up credentials.
func NewCredentials(clusterID string) (Credentials, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Credentials{}, fmt.Errorf("generate a key: %w", err)
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "k8saas Cluster CA", Organization: []string{clusterID}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(20 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return Credentials{}, fmt.Errorf("sign the certificate authority: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Credentials{}, fmt.Errorf("generate a key: %w", err)
	}
	client := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(20 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Credentials{}, fmt.Errorf("read the certificate authority: %w", err)
	}
	der, err := x509.CreateCertificate(rand.Reader, client, caCert, &key.PublicKey, caKey)
	if err != nil {
		return Credentials{}, fmt.Errorf("sign the client certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Credentials{}, fmt.Errorf("encode the client key: %w", err)
	}
	return Credentials{
		CA:         pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		ClientCert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		ClientKey:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		// crypto/rand does not fail on the systems Go supports.
		panic(err)
	}
	return n
}
