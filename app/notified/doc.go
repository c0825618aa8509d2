// Package notified keeps in-process caches of database rows true across instances:
// a row that changes sends a PostgreSQL notification when its transaction commits,
// and every instance's Subscription hands it to its Cache. A cache answers only while
// its subscription is up, and starts empty each time it comes up, so a change it
// could have missed never outlives a read from the database.
package notified
