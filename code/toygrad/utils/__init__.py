"""toygrad.utils: helpers named as in torch.utils."""
