# A file header comment: a blank line separates it from the first declaration,
# so it documents nothing.

package docs

# A user account.
# Second line of the account doc.
struct Account {
    # The account's numeric id.
    Id u64 @0
    Name text @8  # a trailing comment is not documentation
    #No space after the hash.
    Flags u32 @16
}

# Account lookups.
interface Accounts {
    # Fetch one account.
    get(a: Account) returns (b: Account)
}
