mod total;

fn main() {
    let n: i32 = total::total(1, 2);
    println!("{}", n);
}
