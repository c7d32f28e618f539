# An MLP captured once as a CUDA graph and replayed: kernels run as graph nodes.
import torch

torch.manual_seed(0)
mlp = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(2048, 2048), torch.nn.GELU())]).cuda()
x = torch.randn(256, 2048, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.no_grad(), torch.cuda.stream(s):
    for _ in range(3):
        mlp(x)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.no_grad(), torch.cuda.graph(g):
    y = mlp(x)
for _ in range(10):
    g.replay()
torch.cuda.synchronize()
print("sum", float(y.sum()))
