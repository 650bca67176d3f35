print("device-registry")
