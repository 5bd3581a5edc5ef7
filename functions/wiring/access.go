package wiring

// Access is what one deployed function may touch: the database, the attachments' bucket, and
// secrets by configuration variable. The builders refuse what a row does not name, and infra/
// grants exactly what it names.
type Access struct {
	Function    string // the entry point name
	Firestore   bool
	Secrets     []string
	Attachments bool
}

// The secrets a function may read, by configuration variable.
const (
	SecretHMAC       = "HMAC_SECRET"
	SecretPepper     = "HASH_PEPPER_SECRET"
	SecretWebhook    = "WEBHOOK_SECRET"
	SecretSMTP       = "SMTP_PASSWORD"
	SecretMailgunKey = "MAILGUN_WEBHOOK_SIGNING_KEY"
)

// handoffSecrets are what sending the handoff (email, webhook) needs.
var handoffSecrets = []string{SecretWebhook, SecretSMTP}

// accesses is every function's row, in the route table's order.
var accesses = []Access{
	{Function: "Challenge", Secrets: []string{SecretHMAC}},
	{Function: "Forms"},
	{Function: "Drafts", Firestore: true, Attachments: true, Secrets: []string{SecretHMAC, SecretPepper}},
	// Confirmation verifies no proof of work: no HMAC key.
	{Function: "Confirmation", Firestore: true, Attachments: true, Secrets: append([]string{SecretPepper}, handoffSecrets...)},
	{Function: "DeliveryEvents", Firestore: true, Secrets: []string{SecretMailgunKey}},
	// Admin signs its list's cursors under a key derived from the HMAC key.
	{Function: "Sweep", Firestore: true, Attachments: true, Secrets: handoffSecrets},
	{Function: "Admin", Firestore: true, Attachments: true, Secrets: append([]string{SecretHMAC}, handoffSecrets...)},
}

// Accesses returns every function's row, in the route table's order; the
// caller may not change it.
func Accesses() []Access { return accesses }
