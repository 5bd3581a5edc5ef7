package wiring

// Access is what one deployed function may touch: whether it reads and
// writes the Firestore database, whether it holds the attachments'
// bucket, and which secrets it reads, each named by
// the configuration variable that carries it (HMAC_SECRET and
// HASH_PEPPER_SECRET name Secret Manager secrets the function reads through
// the API; the others are Secret Manager-backed environment variables).
//
// The list is the one statement of least privilege: each function's
// builder refuses to open what its row does not name, and infra/ grants
// exactly what the rows name (its checks read this list).
type Access struct {
	// Function is the entry point name.
	Function string
	// Firestore is true when the function holds a Firestore client.
	Firestore bool
	// Secrets are the configuration variables of the secrets it reads.
	Secrets []string
	// Attachments is true when the function holds the attachments'
	// bucket (ATTACHMENT_BUCKET): it writes, reads or deletes attachments.
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
	// Drafts keeps a draft's attachment (and deletes the one it replaces).
	{Function: "Drafts", Firestore: true, Attachments: true, Secrets: []string{SecretHMAC, SecretPepper}},
	// Confirmation hashes flood keys and knows decoys (pepper), sends the
	// handoff right after its commit and deletes a withdrawn introduction's
	// attachment; it verifies no proof of work, so it holds no HMAC key.
	{Function: "Confirmation", Firestore: true, Attachments: true, Secrets: append([]string{SecretPepper}, handoffSecrets...)},
	{Function: "DeliveryEvents", Firestore: true, Secrets: []string{SecretMailgunKey}},
	// Sweep retries due deliveries and deletes the attachments whose
	// introduction is gone; Admin serves an attachment to the owner,
	// deletes it at erasure, retries a delivery when the owner asks, and
	// signs its list's cursors under a key derived from the HMAC key (the
	// same on every instance and across restarts).
	{Function: "Sweep", Firestore: true, Attachments: true, Secrets: handoffSecrets},
	{Function: "Admin", Firestore: true, Attachments: true, Secrets: append([]string{SecretHMAC}, handoffSecrets...)},
}

// Accesses returns every function's row of what it may touch, in the route
// table's order. The caller may not change what it returns.
func Accesses() []Access { return accesses }
