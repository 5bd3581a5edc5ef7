package smtpmail

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/intake"
	"github.com/ownersite/introductions/shared/testsupport"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir and
// returns their paths and a pool that trusts it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "MailDev test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	keyDER, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	return certFile, keyFile, pool
}

func tlsSender(t *testing.T, cfg config.SMTP, roots *x509.CertPool) *Sender {
	t.Helper()
	s, err := New(cfg, Options{Logger: slog.New(slog.DiscardHandler), Now: time.Now, Timeout: 5 * time.Second, RootCAs: roots})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The default mode against a server that offers STARTTLS (and a login only
// after it): with the server's certificate trusted, accepted (with a login,
// too); with an unknown certificate, not sent, though the server would take
// the mail in plain text.
func TestSTARTTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	mp := testsupport.StartMail(t, "--tls", "starttls", "--cert", certFile, "--key", keyFile)
	cfg := smtpConfig(mp)
	cfg.TLS = config.SMTPStartTLS
	if res := tlsSender(t, cfg, pool).Send(context.Background(), confirmed("env-starttls-ok")); res.Status != intake.DeliveryAccepted {
		t.Fatalf("STARTTLS with a trusted certificate: %+v", res)
	}
	login := cfg
	login.Username, login.Password = "intake", "secret"
	if res := tlsSender(t, login, pool).Send(context.Background(), confirmed("env-starttls-login")); res.Status != intake.DeliveryAccepted {
		t.Fatalf("STARTTLS with a login: %+v", res)
	}
	if res := tlsSender(t, cfg, nil).Send(context.Background(), confirmed("env-starttls-unknown")); res.Status == intake.DeliveryAccepted {
		t.Fatalf("sent to a server whose certificate nobody vouches for: %+v", res)
	}
	if n := len(mp.SentTo(t, "owner@example.com")); n != 2 {
		t.Fatalf("MailDev holds %d messages, want 2", n)
	}
}

// SMTP_TLS=tls: TLS from the first byte.
func TestImplicitTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	mp := testsupport.StartMail(t, "--tls", "implicit", "--cert", certFile, "--key", keyFile)
	cfg := smtpConfig(mp)
	cfg.TLS = config.SMTPTLS
	if res := tlsSender(t, cfg, pool).Send(context.Background(), confirmed("env-tls")); res.Status != intake.DeliveryAccepted {
		t.Fatalf("implicit TLS: %+v", res)
	}
	// Plain SMTP to the TLS port: the server waits for a handshake, the
	// client for a greeting, until the attempt's time is up.
	cfg.TLS = config.SMTPPlain
	plain, err := New(cfg, Options{Logger: slog.New(slog.DiscardHandler), Now: time.Now, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res := plain.Send(context.Background(), confirmed("env-plain-to-tls")); res.Status != intake.DeliveryRetryPending || res.Detail != "timeout" {
		t.Fatalf("plain SMTP to a TLS-only port: %+v", res)
	}
}
