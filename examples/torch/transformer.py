# A real PyTorch workload: two transformer encoder layers (attention, layer
# norm, GELU MLP) in bf16, batch 8 x 512 tokens, inside an NVTX range.
import torch

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096,
                                         activation="gelu", batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
model = model.cuda().to(torch.bfloat16).eval()
x = torch.randn(8, 512, 1024, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    model(x)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("model run loop")
    y = model(x)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
print("transformer: done", tuple(y.shape), flush=True)
