import RelayAPI
print("pushrelay")
