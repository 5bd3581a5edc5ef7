output "function_urls" {
  description = "URL of each function, by name: configure the static site with these."
  value       = { for name, f in google_cloudfunctions2_function.function : name => f.url }
}

output "firestore_database" {
  description = "Name of the Firestore database (FIRESTORE_DATABASE)."
  value       = google_firestore_database.introductions.name
}

output "hmac_secret" {
  description = "Resource name of the HMAC key secret (HMAC_SECRET); add versions to it out of band."
  value       = google_secret_manager_secret.hmac.id
}

output "intake_service_account" {
  description = "Email of the public intake functions' runtime service account."
  value       = google_service_account.intake.email
}
