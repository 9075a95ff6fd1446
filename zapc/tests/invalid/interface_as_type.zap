package bad

interface Service {
    ping()
}

struct Holder {
    Svc Service
}
