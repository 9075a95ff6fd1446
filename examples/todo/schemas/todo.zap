# A to-do list: add items, list them, mark them done.
package todo

# One thing to do.
struct Item {
    # Its number, given by the server when the item is added: 1, 2, 3, ...
    Id u64
    # What is to be done.
    Title text
    # Whether it is done.
    Done bool
}

# What `add` takes.
struct AddRequest {
    # What is to be done (at most 200 bytes).
    Title text
}

# Every item, oldest first.
struct ItemList {
    Items list<Item>
}

# Which item `complete` marks done.
struct CompleteRequest {
    Id u64
}

# The to-do list service.
interface Todos {
    # Adds an item and answers it, with its id.
    add(req: AddRequest) returns (item: Item)
    # Answers every item, oldest first.
    list() returns (items: ItemList)
    # Marks an item done and answers it. An unknown id is application error 10.
    complete(req: CompleteRequest) returns (item: Item)
}
