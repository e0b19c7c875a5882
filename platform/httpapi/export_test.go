package httpapi

// ForgetDatabaseTrouble starts a new episode of database trouble, so a test
// sees its first line.
func ForgetDatabaseTrouble() { troubleLog = &databaseTrouble{} }
