/// Real-looking tokens shared by the tests.
enum Fixtures {
    static let remoteToken = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"
    static let voipToken = "2c1a7e0bd4e0f8a3b6c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9"
    static let fcmToken =
        "cJ3EXAMPLEk:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx8kC1mNN3UM2ntR3mP4fF9w7gHqH7Tn5bX1sN0mQ6rZ2kY8tV4uW_pLq9E3oGdIvC"
}
